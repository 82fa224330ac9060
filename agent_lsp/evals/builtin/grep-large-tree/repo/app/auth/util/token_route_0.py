"""auth/util: token and route helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def token_route_key(token_id: int, route: str) -> str:
    return f"auth:util:{token_id}:{route}"


def token_route_limit() -> int:
    return 293
