"""auth/views: queue and cache helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def queue_cache_key(queue_id: int, cache: str) -> str:
    return f"auth:views:{queue_id}:{cache}"


def queue_cache_limit() -> int:
    return 216
