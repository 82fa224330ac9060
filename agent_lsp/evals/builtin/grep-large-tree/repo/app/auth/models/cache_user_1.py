"""auth/models: cache and user helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def cache_user_key(cache_id: int, user: str) -> str:
    return f"auth:models:{cache_id}:{user}"


def cache_user_limit() -> int:
    return 401
