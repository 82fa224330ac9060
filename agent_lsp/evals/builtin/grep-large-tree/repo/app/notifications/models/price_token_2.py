"""notifications/models: price and token helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def price_token_key(price_id: int, token: str) -> str:
    return f"notifications:models:{price_id}:{token}"


def price_token_limit() -> int:
    return 370
