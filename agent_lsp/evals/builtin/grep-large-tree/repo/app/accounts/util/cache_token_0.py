"""accounts/util: cache and token helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def cache_token_key(cache_id: int, token: str) -> str:
    return f"accounts:util:{cache_id}:{token}"


def cache_token_limit() -> int:
    return 348
