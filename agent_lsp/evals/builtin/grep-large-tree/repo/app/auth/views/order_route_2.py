"""auth/views: order and route helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def order_route_key(order_id: int, route: str) -> str:
    return f"auth:views:{order_id}:{route}"


def order_route_limit() -> int:
    return 274
