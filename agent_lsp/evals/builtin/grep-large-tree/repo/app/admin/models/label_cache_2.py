"""admin/models: label and cache helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def label_cache_key(label_id: int, cache: str) -> str:
    return f"admin:models:{label_id}:{cache}"


def label_cache_limit() -> int:
    return 263
