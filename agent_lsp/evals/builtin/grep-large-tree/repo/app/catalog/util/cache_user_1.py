"""catalog/util: cache and user helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def cache_user_key(cache_id: int, user: str) -> str:
    return f"catalog:util:{cache_id}:{user}"


def cache_user_limit() -> int:
    return 230
