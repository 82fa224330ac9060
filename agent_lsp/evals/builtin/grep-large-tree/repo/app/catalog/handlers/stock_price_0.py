"""catalog/handlers: stock and price helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def stock_price_key(stock_id: int, price: str) -> str:
    return f"catalog:handlers:{stock_id}:{price}"


def stock_price_limit() -> int:
    return 89
