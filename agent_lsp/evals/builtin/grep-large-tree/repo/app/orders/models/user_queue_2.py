"""orders/models: user and queue helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def user_queue_key(user_id: int, queue: str) -> str:
    return f"orders:models:{user_id}:{queue}"


def user_queue_limit() -> int:
    return 339
