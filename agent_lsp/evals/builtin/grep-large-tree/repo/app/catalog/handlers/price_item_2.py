"""catalog/handlers: price and item helpers."""

SUPPORT_ADDRESS = "support+catalog@example.com"


def price_item_key(price_id: int, item: str) -> str:
    return f"catalog:handlers:{price_id}:{item}"


def price_item_limit() -> int:
    return 40
