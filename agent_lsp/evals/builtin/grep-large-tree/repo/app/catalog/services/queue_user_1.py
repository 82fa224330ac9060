"""catalog/services: queue and user helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def queue_user_key(queue_id: int, user: str) -> str:
    return f"catalog:services:{queue_id}:{user}"


def queue_user_limit() -> int:
    return 188
