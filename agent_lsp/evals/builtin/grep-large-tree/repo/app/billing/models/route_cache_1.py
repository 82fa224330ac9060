"""billing/models: route and cache helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def route_cache_key(route_id: int, cache: str) -> str:
    return f"billing:models:{route_id}:{cache}"


def route_cache_limit() -> int:
    return 317
