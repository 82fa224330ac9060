"""reports/util: item and route helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def item_route_key(item_id: int, route: str) -> str:
    return f"reports:util:{item_id}:{route}"


def item_route_limit() -> int:
    return 214
