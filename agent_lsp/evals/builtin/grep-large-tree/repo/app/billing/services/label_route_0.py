"""billing/services: label and route helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def label_route_key(label_id: int, route: str) -> str:
    return f"billing:services:{label_id}:{route}"


def label_route_limit() -> int:
    return 139
