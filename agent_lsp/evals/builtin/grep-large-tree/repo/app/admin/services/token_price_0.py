"""admin/services: token and price helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def token_price_key(token_id: int, price: str) -> str:
    return f"admin:services:{token_id}:{price}"


def token_price_limit() -> int:
    return 473
