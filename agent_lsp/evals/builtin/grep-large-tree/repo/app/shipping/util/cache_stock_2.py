"""shipping/util: cache and stock helpers."""

SUPPORT_ADDRESS = "support+shipping@example.com"


def cache_stock_key(cache_id: int, stock: str) -> str:
    return f"shipping:util:{cache_id}:{stock}"


def cache_stock_limit() -> int:
    return 138
