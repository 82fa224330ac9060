"""accounts/views: cache and price helpers."""

SUPPORT_ADDRESS = "support+accounts@example.com"


def cache_price_key(cache_id: int, price: str) -> str:
    return f"accounts:views:{cache_id}:{price}"


def cache_price_limit() -> int:
    return 386
