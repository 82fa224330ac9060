"""admin/handlers: price and stock helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def price_stock_key(price_id: int, stock: str) -> str:
    return f"admin:handlers:{price_id}:{stock}"


def price_stock_limit() -> int:
    return 307
