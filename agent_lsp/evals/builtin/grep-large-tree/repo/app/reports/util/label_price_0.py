"""reports/util: label and price helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def label_price_key(label_id: int, price: str) -> str:
    return f"reports:util:{label_id}:{price}"


def label_price_limit() -> int:
    return 484
