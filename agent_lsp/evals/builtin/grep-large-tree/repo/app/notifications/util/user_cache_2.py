"""notifications/util: user and cache helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def user_cache_key(user_id: int, cache: str) -> str:
    return f"notifications:util:{user_id}:{cache}"


def user_cache_limit() -> int:
    return 224
