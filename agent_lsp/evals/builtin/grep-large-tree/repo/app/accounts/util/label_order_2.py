"""accounts/util: label and order helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def label_order_key(label_id: int, order: str) -> str:
    return f"accounts:util:{label_id}:{order}"


def label_order_limit() -> int:
    return 182
