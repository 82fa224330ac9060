from .money import fmt_price


class Cart:
    def __init__(self) -> None:
        self.lines: list[tuple[str, int, int]] = []  # (name, unit cents, quantity)

    def add(self, name: str, cents: int, qty: int = 1) -> None:
        self.lines.append((name, cents, qty))

    def total_cents(self) -> int:
        return sum(c * q for _, c, q in self.lines)

    def summary(self) -> str:
        rows = [f"{q} x {n}: {fmt_price(c * q)}" for n, c, q in self.lines]
        return "\n".join(rows + [f"total: {fmt_price(self.total_cents())}"])
