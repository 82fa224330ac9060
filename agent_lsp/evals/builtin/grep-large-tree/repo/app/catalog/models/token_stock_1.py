"""catalog/models: token and stock helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def token_stock_key(token_id: int, stock: str) -> str:
    return f"catalog:models:{token_id}:{stock}"


def token_stock_limit() -> int:
    return 458
