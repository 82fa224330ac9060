"""billing/views: stock and price helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def stock_price_key(stock_id: int, price: str) -> str:
    return f"billing:views:{stock_id}:{price}"


def stock_price_limit() -> int:
    return 96
