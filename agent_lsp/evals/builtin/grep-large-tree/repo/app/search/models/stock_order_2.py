"""search/models: stock and order helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def stock_order_key(stock_id: int, order: str) -> str:
    return f"search:models:{stock_id}:{order}"


def stock_order_limit() -> int:
    return 485
