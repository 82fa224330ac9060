"""search/services: cache and queue helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def cache_queue_key(cache_id: int, queue: str) -> str:
    return f"search:services:{cache_id}:{queue}"


def cache_queue_limit() -> int:
    return 269
