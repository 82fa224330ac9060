"""catalog/services: queue and label helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def queue_label_key(queue_id: int, label: str) -> str:
    return f"catalog:services:{queue_id}:{label}"


def queue_label_limit() -> int:
    return 98
