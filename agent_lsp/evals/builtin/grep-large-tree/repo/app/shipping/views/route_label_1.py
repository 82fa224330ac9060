"""shipping/views: route and label helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def route_label_key(route_id: int, label: str) -> str:
    return f"shipping:views:{route_id}:{label}"


def route_label_limit() -> int:
    return 41
