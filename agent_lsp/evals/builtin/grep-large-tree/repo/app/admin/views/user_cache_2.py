"""admin/views: user and cache helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def user_cache_key(user_id: int, cache: str) -> str:
    return f"admin:views:{user_id}:{cache}"


def user_cache_limit() -> int:
    return 363
