"""catalog/views: label and cache helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def label_cache_key(label_id: int, cache: str) -> str:
    return f"catalog:views:{label_id}:{cache}"


def label_cache_limit() -> int:
    return 371
