"""reports/services: order and stock helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def order_stock_key(order_id: int, stock: str) -> str:
    return f"reports:services:{order_id}:{stock}"


def order_stock_limit() -> int:
    return 212
