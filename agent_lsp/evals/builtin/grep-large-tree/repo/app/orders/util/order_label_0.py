"""orders/util: order and label helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def order_label_key(order_id: int, label: str) -> str:
    return f"orders:util:{order_id}:{label}"


def order_label_limit() -> int:
    return 256
