"""billing/util: route and token helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def route_token_key(route_id: int, token: str) -> str:
    return f"billing:util:{route_id}:{token}"


def route_token_limit() -> int:
    return 6
