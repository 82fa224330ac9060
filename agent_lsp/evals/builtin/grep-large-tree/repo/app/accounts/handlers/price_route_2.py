"""accounts/handlers: price and route helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def price_route_key(price_id: int, route: str) -> str:
    return f"accounts:handlers:{price_id}:{route}"


def price_route_limit() -> int:
    return 464
