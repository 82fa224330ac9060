"""search/util: price and label helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def price_label_key(price_id: int, label: str) -> str:
    return f"search:util:{price_id}:{label}"


def price_label_limit() -> int:
    return 222
