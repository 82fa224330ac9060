"""shipping/views: price and item helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def price_item_key(price_id: int, item: str) -> str:
    return f"shipping:views:{price_id}:{item}"


def price_item_limit() -> int:
    return 50
