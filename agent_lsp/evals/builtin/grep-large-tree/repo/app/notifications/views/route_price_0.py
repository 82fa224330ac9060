"""notifications/views: route and price helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def route_price_key(route_id: int, price: str) -> str:
    return f"notifications:views:{route_id}:{price}"


def route_price_limit() -> int:
    return 19
