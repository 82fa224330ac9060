"""Money as the shop shows it."""


def fmt_price(cents: int, currency: str = "EUR") -> str:
    """1999 -> '19.99 EUR'."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d} {currency}"
