"""reports/handlers: user and cache helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def user_cache_key(user_id: int, cache: str) -> str:
    return f"reports:handlers:{user_id}:{cache}"


def user_cache_limit() -> int:
    return 19
