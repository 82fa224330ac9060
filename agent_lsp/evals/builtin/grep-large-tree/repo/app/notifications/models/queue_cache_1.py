"""notifications/models: queue and cache helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def queue_cache_key(queue_id: int, cache: str) -> str:
    return f"notifications:models:{queue_id}:{cache}"


def queue_cache_limit() -> int:
    return 242
