"""shipping/util: cache and label helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def cache_label_key(cache_id: int, label: str) -> str:
    return f"shipping:util:{cache_id}:{label}"


def cache_label_limit() -> int:
    return 278
