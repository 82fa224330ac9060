"""orders/handlers: stock and token helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def stock_token_key(stock_id: int, token: str) -> str:
    return f"orders:handlers:{stock_id}:{token}"


def stock_token_limit() -> int:
    return 153
