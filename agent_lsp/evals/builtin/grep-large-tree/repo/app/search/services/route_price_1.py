"""search/services: route and price helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def route_price_key(route_id: int, price: str) -> str:
    return f"search:services:{route_id}:{price}"


def route_price_limit() -> int:
    return 347
