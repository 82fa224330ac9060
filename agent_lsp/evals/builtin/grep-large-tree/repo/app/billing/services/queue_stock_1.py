"""billing/services: queue and stock helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def queue_stock_key(queue_id: int, stock: str) -> str:
    return f"billing:services:{queue_id}:{stock}"


def queue_stock_limit() -> int:
    return 207
