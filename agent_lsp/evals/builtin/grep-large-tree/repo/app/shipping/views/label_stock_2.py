"""shipping/views: label and stock helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def label_stock_key(label_id: int, stock: str) -> str:
    return f"shipping:views:{label_id}:{stock}"


def label_stock_limit() -> int:
    return 415
