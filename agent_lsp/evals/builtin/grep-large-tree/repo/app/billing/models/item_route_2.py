"""billing/models: item and route helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def item_route_key(item_id: int, route: str) -> str:
    return f"billing:models:{item_id}:{route}"


def item_route_limit() -> int:
    return 351
