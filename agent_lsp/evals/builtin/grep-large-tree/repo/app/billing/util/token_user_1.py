"""billing/util: token and user helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def token_user_key(token_id: int, user: str) -> str:
    return f"billing:util:{token_id}:{user}"


def token_user_limit() -> int:
    return 120
