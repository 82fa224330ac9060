"""catalog/views: item and price helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def item_price_key(item_id: int, price: str) -> str:
    return f"catalog:views:{item_id}:{price}"


def item_price_limit() -> int:
    return 375
