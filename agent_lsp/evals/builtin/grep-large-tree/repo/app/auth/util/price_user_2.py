"""auth/util: price and user helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def price_user_key(price_id: int, user: str) -> str:
    return f"auth:util:{price_id}:{user}"


def price_user_limit() -> int:
    return 79
