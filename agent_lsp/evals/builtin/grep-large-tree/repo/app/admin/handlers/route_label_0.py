"""admin/handlers: route and label helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def route_label_key(route_id: int, label: str) -> str:
    return f"admin:handlers:{route_id}:{label}"


def route_label_limit() -> int:
    return 430
