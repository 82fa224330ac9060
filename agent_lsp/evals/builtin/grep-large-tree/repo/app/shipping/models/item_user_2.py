"""shipping/models: item and user helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def item_user_key(item_id: int, user: str) -> str:
    return f"shipping:models:{item_id}:{user}"


def item_user_limit() -> int:
    return 463
