"""shipping/handlers: queue and item helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def queue_item_key(queue_id: int, item: str) -> str:
    return f"shipping:handlers:{queue_id}:{item}"


def queue_item_limit() -> int:
    return 487
