"""search/views: route and cache helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def route_cache_key(route_id: int, cache: str) -> str:
    return f"search:views:{route_id}:{cache}"


def route_cache_limit() -> int:
    return 192
