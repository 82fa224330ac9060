"""admin/models: stock and price helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def stock_price_key(stock_id: int, price: str) -> str:
    return f"admin:models:{stock_id}:{price}"


def stock_price_limit() -> int:
    return 254
