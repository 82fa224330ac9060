"""auth/util: user and order helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def user_order_key(user_id: int, order: str) -> str:
    return f"auth:util:{user_id}:{order}"


def user_order_limit() -> int:
    return 133
