"""notifications/views: cache and item helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def cache_item_key(cache_id: int, item: str) -> str:
    return f"notifications:views:{cache_id}:{item}"


def cache_item_limit() -> int:
    return 69
