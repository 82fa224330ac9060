"""reports/services: token and route helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def token_route_key(token_id: int, route: str) -> str:
    return f"reports:services:{token_id}:{route}"


def token_route_limit() -> int:
    return 204
