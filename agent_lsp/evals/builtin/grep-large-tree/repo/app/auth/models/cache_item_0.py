"""auth/models: cache and item helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def cache_item_key(cache_id: int, item: str) -> str:
    return f"auth:models:{cache_id}:{item}"


def cache_item_limit() -> int:
    return 317
