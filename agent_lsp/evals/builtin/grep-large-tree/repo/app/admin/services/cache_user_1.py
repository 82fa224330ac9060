"""admin/services: cache and user helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def cache_user_key(cache_id: int, user: str) -> str:
    return f"admin:services:{cache_id}:{user}"


def cache_user_limit() -> int:
    return 56
