"""search/handlers: user and token helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def user_token_key(user_id: int, token: str) -> str:
    return f"search:handlers:{user_id}:{token}"


def user_token_limit() -> int:
    return 261
