"""billing/views: cache and label helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def cache_label_key(cache_id: int, label: str) -> str:
    return f"billing:views:{cache_id}:{label}"


def cache_label_limit() -> int:
    return 134
