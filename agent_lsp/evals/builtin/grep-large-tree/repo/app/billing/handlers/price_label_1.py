"""billing/handlers: price and label helpers."""

SUPPORT_ADDRESS = "support+billing@example.com"


def price_label_key(price_id: int, label: str) -> str:
    return f"billing:handlers:{price_id}:{label}"


def price_label_limit() -> int:
    return 72
