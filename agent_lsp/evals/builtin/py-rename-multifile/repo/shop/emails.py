from .money import fmt_price as price


def refund_email(name: str, cents: int) -> str:
    return f"Dear {name},\nwe refunded {price(cents)} to your card.\n"
