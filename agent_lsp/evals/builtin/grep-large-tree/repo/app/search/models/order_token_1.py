"""search/models: order and token helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def order_token_key(order_id: int, token: str) -> str:
    return f"search:models:{order_id}:{token}"


def order_token_limit() -> int:
    return 159
