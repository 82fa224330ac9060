"""catalog/util: token and cache helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def token_cache_key(token_id: int, cache: str) -> str:
    return f"catalog:util:{token_id}:{cache}"


def token_cache_limit() -> int:
    return 418
