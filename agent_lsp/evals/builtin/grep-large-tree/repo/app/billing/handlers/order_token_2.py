"""billing/handlers: order and token helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def order_token_key(order_id: int, token: str) -> str:
    return f"billing:handlers:{order_id}:{token}"


def order_token_limit() -> int:
    return 338
