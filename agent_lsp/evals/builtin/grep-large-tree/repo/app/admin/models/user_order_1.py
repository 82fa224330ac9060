"""admin/models: user and order helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def user_order_key(user_id: int, order: str) -> str:
    return f"admin:models:{user_id}:{order}"


def user_order_limit() -> int:
    return 129
