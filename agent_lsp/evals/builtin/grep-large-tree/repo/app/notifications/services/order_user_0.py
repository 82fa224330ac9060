"""notifications/services: order and user helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def order_user_key(order_id: int, user: str) -> str:
    return f"notifications:services:{order_id}:{user}"


def order_user_limit() -> int:
    return 306
