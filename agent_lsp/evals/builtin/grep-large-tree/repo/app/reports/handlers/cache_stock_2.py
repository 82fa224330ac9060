"""reports/handlers: cache and stock helpers."""

SUPPORT_ADDRESS = "support+reports@example.com"


def cache_stock_key(cache_id: int, stock: str) -> str:
    return f"reports:handlers:{cache_id}:{stock}"


def cache_stock_limit() -> int:
    return 146
