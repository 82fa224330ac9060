"""admin/util: order and stock helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def order_stock_key(order_id: int, stock: str) -> str:
    return f"admin:util:{order_id}:{stock}"


def order_stock_limit() -> int:
    return 369
