"""auth/handlers: user and route helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def user_route_key(user_id: int, route: str) -> str:
    return f"auth:handlers:{user_id}:{route}"


def user_route_limit() -> int:
    return 204
