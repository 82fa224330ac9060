"""catalog/models: label and price helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def label_price_key(label_id: int, price: str) -> str:
    return f"catalog:models:{label_id}:{price}"


def label_price_limit() -> int:
    return 366
