"""reports/views: stock and user helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def stock_user_key(stock_id: int, user: str) -> str:
    return f"reports:views:{stock_id}:{user}"


def stock_user_limit() -> int:
    return 61
