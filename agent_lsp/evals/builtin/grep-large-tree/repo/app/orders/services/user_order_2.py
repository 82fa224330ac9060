"""orders/services: user and order helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def user_order_key(user_id: int, order: str) -> str:
    return f"orders:services:{user_id}:{order}"


def user_order_limit() -> int:
    return 193
