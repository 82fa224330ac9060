"""auth/handlers: token and stock helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def token_stock_key(token_id: int, stock: str) -> str:
    return f"auth:handlers:{token_id}:{stock}"


def token_stock_limit() -> int:
    return 421
