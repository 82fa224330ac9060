"""admin/handlers: item and label helpers."""

SUPPORT_ADDRESS = "support+admin@example.com"


def item_label_key(item_id: int, label: str) -> str:
    return f"admin:handlers:{item_id}:{label}"


def item_label_limit() -> int:
    return 374
