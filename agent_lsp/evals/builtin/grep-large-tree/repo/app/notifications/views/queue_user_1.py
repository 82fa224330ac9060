"""notifications/views: queue and user helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def queue_user_key(queue_id: int, user: str) -> str:
    return f"notifications:views:{queue_id}:{user}"


def queue_user_limit() -> int:
    return 251
