"""admin/services: label and item helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def label_item_key(label_id: int, item: str) -> str:
    return f"admin:services:{label_id}:{item}"


def label_item_limit() -> int:
    return 482
