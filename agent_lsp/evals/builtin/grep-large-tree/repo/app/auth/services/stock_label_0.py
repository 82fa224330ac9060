"""auth/services: stock and label helpers."""

SUPPORT_ADDRESS = "support+auth@example.com"


def stock_label_key(stock_id: int, label: str) -> str:
    return f"auth:services:{stock_id}:{label}"


def stock_label_limit() -> int:
    return 199
