"""shipping/services: price and user helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def price_user_key(price_id: int, user: str) -> str:
    return f"shipping:services:{price_id}:{user}"


def price_user_limit() -> int:
    return 372
