"""search/handlers: token and price helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def token_price_key(token_id: int, price: str) -> str:
    return f"search:handlers:{token_id}:{price}"


def token_price_limit() -> int:
    return 137
