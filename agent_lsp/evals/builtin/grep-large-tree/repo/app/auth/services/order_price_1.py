"""auth/services: order and price helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def order_price_key(order_id: int, price: str) -> str:
    return f"auth:services:{order_id}:{price}"


def order_price_limit() -> int:
    return 355
