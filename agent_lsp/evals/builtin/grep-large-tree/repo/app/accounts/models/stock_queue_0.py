"""accounts/models: stock and queue helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def stock_queue_key(stock_id: int, queue: str) -> str:
    return f"accounts:models:{stock_id}:{queue}"


def stock_queue_limit() -> int:
    return 355
