"""notifications/services: route and cache helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def route_cache_key(route_id: int, cache: str) -> str:
    return f"notifications:services:{route_id}:{cache}"


def route_cache_limit() -> int:
    return 376
