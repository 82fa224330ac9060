"""catalog/models: route and stock helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def route_stock_key(route_id: int, stock: str) -> str:
    return f"catalog:models:{route_id}:{stock}"


def route_stock_limit() -> int:
    return 86
