"""catalog/handlers: cache and order helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def cache_order_key(cache_id: int, order: str) -> str:
    return f"catalog:handlers:{cache_id}:{order}"


def cache_order_limit() -> int:
    return 466
