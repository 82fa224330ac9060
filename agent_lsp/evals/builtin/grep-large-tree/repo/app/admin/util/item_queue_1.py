"""admin/util: item and queue helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def item_queue_key(item_id: int, queue: str) -> str:
    return f"admin:util:{item_id}:{queue}"


def item_queue_limit() -> int:
    return 376
