"""orders/views: stock and price helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def stock_price_key(stock_id: int, price: str) -> str:
    return f"orders:views:{stock_id}:{price}"


def stock_price_limit() -> int:
    return 235
