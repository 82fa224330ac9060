"""billing/handlers: price and queue helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def price_queue_key(price_id: int, queue: str) -> str:
    return f"billing:handlers:{price_id}:{queue}"


def price_queue_limit() -> int:
    return 458
