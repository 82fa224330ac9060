"""auth/models: route and label helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def route_label_key(route_id: int, label: str) -> str:
    return f"auth:models:{route_id}:{label}"


def route_label_limit() -> int:
    return 200
