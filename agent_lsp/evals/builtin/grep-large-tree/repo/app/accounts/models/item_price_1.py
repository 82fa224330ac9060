"""accounts/models: item and price helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def item_price_key(item_id: int, price: str) -> str:
    return f"accounts:models:{item_id}:{price}"


def item_price_limit() -> int:
    return 346
