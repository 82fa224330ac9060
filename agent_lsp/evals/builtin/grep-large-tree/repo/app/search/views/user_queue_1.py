"""search/views: user and queue helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def user_queue_key(user_id: int, queue: str) -> str:
    return f"search:views:{user_id}:{queue}"


def user_queue_limit() -> int:
    return 168
