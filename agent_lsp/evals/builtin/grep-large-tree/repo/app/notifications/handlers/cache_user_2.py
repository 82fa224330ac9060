"""notifications/handlers: cache and user helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def cache_user_key(cache_id: int, user: str) -> str:
    return f"notifications:handlers:{cache_id}:{user}"


def cache_user_limit() -> int:
    return 402
