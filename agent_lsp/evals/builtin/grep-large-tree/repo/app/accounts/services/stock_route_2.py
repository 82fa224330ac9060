"""accounts/services: stock and route helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def stock_route_key(stock_id: int, route: str) -> str:
    return f"accounts:services:{stock_id}:{route}"


def stock_route_limit() -> int:
    return 386
