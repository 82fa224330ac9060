"""catalog/util: label and order helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def label_order_key(label_id: int, order: str) -> str:
    return f"catalog:util:{label_id}:{order}"


def label_order_limit() -> int:
    return 274
