"""orders/handlers: item and price helpers."""

SUPPORT_ADDRESS = "support+orders@example.com"


def item_price_key(item_id: int, price: str) -> str:
    return f"orders:handlers:{item_id}:{price}"


def item_price_limit() -> int:
    return 162
