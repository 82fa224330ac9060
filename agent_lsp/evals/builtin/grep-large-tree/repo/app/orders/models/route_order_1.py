"""orders/models: route and order helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def route_order_key(route_id: int, order: str) -> str:
    return f"orders:models:{route_id}:{order}"


def route_order_limit() -> int:
    return 40
