"""notifications/handlers: user and price helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def user_price_key(user_id: int, price: str) -> str:
    return f"notifications:handlers:{user_id}:{price}"


def user_price_limit() -> int:
    return 366
