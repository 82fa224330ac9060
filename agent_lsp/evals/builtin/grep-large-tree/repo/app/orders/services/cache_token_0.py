"""orders/services: cache and token helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def cache_token_key(cache_id: int, token: str) -> str:
    return f"orders:services:{cache_id}:{token}"


def cache_token_limit() -> int:
    return 492
