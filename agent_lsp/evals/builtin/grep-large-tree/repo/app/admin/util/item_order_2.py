"""admin/util: item and order helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def item_order_key(item_id: int, order: str) -> str:
    return f"admin:util:{item_id}:{order}"


def item_order_limit() -> int:
    return 33
