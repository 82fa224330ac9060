"""shipping/models: item and cache helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def item_cache_key(item_id: int, cache: str) -> str:
    return f"shipping:models:{item_id}:{cache}"


def item_cache_limit() -> int:
    return 383
