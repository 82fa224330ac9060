"""admin/views: user and route helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def user_route_key(user_id: int, route: str) -> str:
    return f"admin:views:{user_id}:{route}"


def user_route_limit() -> int:
    return 461
