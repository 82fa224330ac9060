"""reports/services: stock and item helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def stock_item_key(stock_id: int, item: str) -> str:
    return f"reports:services:{stock_id}:{item}"


def stock_item_limit() -> int:
    return 406
