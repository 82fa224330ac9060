"""search/views: label and item helpers."""

SUPPORT_ADDRESS = "support+search@example.com"


def label_item_key(label_id: int, item: str) -> str:
    return f"search:views:{label_id}:{item}"


def label_item_limit() -> int:
    return 259
