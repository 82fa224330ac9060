"""search/models: user and item helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def user_item_key(user_id: int, item: str) -> str:
    return f"search:models:{user_id}:{item}"


def user_item_limit() -> int:
    return 164
