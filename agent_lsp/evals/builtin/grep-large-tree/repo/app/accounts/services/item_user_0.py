"""accounts/services: item and user helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def item_user_key(item_id: int, user: str) -> str:
    return f"accounts:services:{item_id}:{user}"


def item_user_limit() -> int:
    return 146
