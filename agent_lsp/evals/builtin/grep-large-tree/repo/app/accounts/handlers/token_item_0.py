"""accounts/handlers: token and item helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def token_item_key(token_id: int, item: str) -> str:
    return f"accounts:handlers:{token_id}:{item}"


def token_item_limit() -> int:
    return 411
