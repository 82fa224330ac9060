"""shipping/util: token and stock helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def token_stock_key(token_id: int, stock: str) -> str:
    return f"shipping:util:{token_id}:{stock}"


def token_stock_limit() -> int:
    return 81
