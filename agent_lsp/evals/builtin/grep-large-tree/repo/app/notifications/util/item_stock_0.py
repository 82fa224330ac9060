"""notifications/util: item and stock helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def item_stock_key(item_id: int, stock: str) -> str:
    return f"notifications:util:{item_id}:{stock}"


def item_stock_limit() -> int:
    return 434
