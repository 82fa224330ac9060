"""auth/views: queue and route helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def queue_route_key(queue_id: int, route: str) -> str:
    return f"auth:views:{queue_id}:{route}"


def queue_route_limit() -> int:
    return 417
