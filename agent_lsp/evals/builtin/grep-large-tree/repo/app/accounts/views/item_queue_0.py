"""accounts/views: item and queue helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def item_queue_key(item_id: int, queue: str) -> str:
    return f"accounts:views:{item_id}:{queue}"


def item_queue_limit() -> int:
    return 41
