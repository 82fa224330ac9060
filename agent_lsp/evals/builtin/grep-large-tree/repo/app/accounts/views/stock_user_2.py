"""accounts/views: stock and user helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def stock_user_key(stock_id: int, user: str) -> str:
    return f"accounts:views:{stock_id}:{user}"


def stock_user_limit() -> int:
    return 225
