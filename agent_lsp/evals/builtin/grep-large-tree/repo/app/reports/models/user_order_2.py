"""reports/models: user and order helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def user_order_key(user_id: int, order: str) -> str:
    return f"reports:models:{user_id}:{order}"


def user_order_limit() -> int:
    return 273
