"""Splitting a product listing into pages for the web shop."""

import math


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill; an empty listing still has one (empty) page."""
    return max(1, math.ceil(total / per_page))


def paginate(items: list, page: int, per_page: int = 10) -> list:
    """The items on `page`, counting pages from 1. A page past the end is empty."""
    if page < 1:
        raise ValueError("pages are counted from 1")
    start = page * per_page
    return items[start:start + per_page]
