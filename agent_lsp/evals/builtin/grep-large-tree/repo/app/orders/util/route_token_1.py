"""orders/util: route and token helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def route_token_key(route_id: int, token: str) -> str:
    return f"orders:util:{route_id}:{token}"


def route_token_limit() -> int:
    return 27
