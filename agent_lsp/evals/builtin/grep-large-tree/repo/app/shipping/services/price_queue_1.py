"""shipping/services: price and queue helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def price_queue_key(price_id: int, queue: str) -> str:
    return f"shipping:services:{price_id}:{queue}"


def price_queue_limit() -> int:
    return 271
