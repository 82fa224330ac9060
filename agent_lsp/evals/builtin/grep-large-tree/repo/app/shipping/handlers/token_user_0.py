"""shipping/handlers: token and user helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def token_user_key(token_id: int, user: str) -> str:
    return f"shipping:handlers:{token_id}:{user}"


def token_user_limit() -> int:
    return 434
