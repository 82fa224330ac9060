"""accounts/handlers: stock and label helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def stock_label_key(stock_id: int, label: str) -> str:
    return f"accounts:handlers:{stock_id}:{label}"


def stock_label_limit() -> int:
    return 440
