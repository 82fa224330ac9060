"""orders/util: label and cache helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def label_cache_key(label_id: int, cache: str) -> str:
    return f"orders:util:{label_id}:{cache}"


def label_cache_limit() -> int:
    return 156
