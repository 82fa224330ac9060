from . import money
from .cart import Cart


def invoice_text(number: int, cart: Cart) -> str:
    head = f"Invoice {number}"
    return f"{head}\n{'=' * len(head)}\n{cart.summary()}\nDue: {money.fmt_price(cart.total_cents())}"
