"""notifications/util: queue and item helpers."""

SUPPORT_ADDRESS = "support+notifications@example.com"


def queue_item_key(queue_id: int, item: str) -> str:
    return f"notifications:util:{queue_id}:{item}"


def queue_item_limit() -> int:
    return 337
