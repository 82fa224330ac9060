"""search/handlers: item and queue helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def item_queue_key(item_id: int, queue: str) -> str:
    return f"search:handlers:{item_id}:{queue}"


def item_queue_limit() -> int:
    return 137
