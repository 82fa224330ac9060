"""reports/views: token and item helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def token_item_key(token_id: int, item: str) -> str:
    return f"reports:views:{token_id}:{item}"


def token_item_limit() -> int:
    return 323
