"""notifications/models: stock and item helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def stock_item_key(stock_id: int, item: str) -> str:
    return f"notifications:models:{stock_id}:{item}"


def stock_item_limit() -> int:
    return 241
