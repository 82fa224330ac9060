"""accounts/services: item and order helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def item_order_key(item_id: int, order: str) -> str:
    return f"accounts:services:{item_id}:{order}"


def item_order_limit() -> int:
    return 451
