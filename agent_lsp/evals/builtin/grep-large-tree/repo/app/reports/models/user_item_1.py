"""reports/models: user and item helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def user_item_key(user_id: int, item: str) -> str:
    return f"reports:models:{user_id}:{item}"


def user_item_limit() -> int:
    return 377
