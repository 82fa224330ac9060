"""reports/util: price and label helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def price_label_key(price_id: int, label: str) -> str:
    return f"reports:util:{price_id}:{label}"


def price_label_limit() -> int:
    return 218
