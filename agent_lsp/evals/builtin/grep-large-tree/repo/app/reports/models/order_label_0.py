"""reports/models: order and label helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def order_label_key(order_id: int, label: str) -> str:
    return f"reports:models:{order_id}:{label}"


def order_label_limit() -> int:
    return 31
