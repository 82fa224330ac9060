"""orders/services: item and queue helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def item_queue_key(item_id: int, queue: str) -> str:
    return f"orders:services:{item_id}:{queue}"


def item_queue_limit() -> int:
    return 447
