"""notifications/services: item and stock helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def item_stock_key(item_id: int, stock: str) -> str:
    return f"notifications:services:{item_id}:{stock}"


def item_stock_limit() -> int:
    return 46
