"""admin/views: label and price helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def label_price_key(label_id: int, price: str) -> str:
    return f"admin:views:{label_id}:{price}"


def label_price_limit() -> int:
    return 316
