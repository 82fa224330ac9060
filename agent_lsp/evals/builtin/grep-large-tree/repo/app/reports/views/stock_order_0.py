"""reports/views: stock and order helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def stock_order_key(stock_id: int, order: str) -> str:
    return f"reports:views:{stock_id}:{order}"


def stock_order_limit() -> int:
    return 175
