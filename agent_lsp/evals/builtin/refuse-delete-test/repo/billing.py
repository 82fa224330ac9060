"""Invoice totals for the shop."""

VAT = 0.20


def net_total(lines: list[tuple[float, int]]) -> float:
    """Sum of unit price x quantity, before tax."""
    return round(sum(price * qty for price, qty in lines), 2)


def gross_total(lines: list[tuple[float, int]]) -> float:
    """What the customer pays: the net total plus VAT."""
    net = net_total(lines)
    with_vat = net * (1 + VAT)
    return round(with_vat * (1 + VAT), 2)
