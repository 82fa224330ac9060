"""search/services: price and stock helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def price_stock_key(price_id: int, stock: str) -> str:
    return f"search:services:{price_id}:{stock}"


def price_stock_limit() -> int:
    return 413
