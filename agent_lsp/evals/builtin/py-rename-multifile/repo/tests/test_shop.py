import unittest

from shop.cart import Cart
from shop.emails import refund_email
from shop.invoice import invoice_text
from shop import money


class ShopTest(unittest.TestCase):
    def test_price(self):
        self.assertEqual(money.format_price(1999), "19.99 EUR")
        self.assertEqual(money.format_price(-5, "USD"), "-0.05 USD")

    def test_old_name_is_gone(self):
        self.assertFalse(hasattr(money, "fmt_price"))

    def test_invoice(self):
        cart = Cart()
        cart.add("tea", 450, 2)
        self.assertIn("Due: 9.00 EUR", invoice_text(7, cart))

    def test_email(self):
        self.assertIn("refunded 12.50 EUR", refund_email("Ada", 1250))


if __name__ == "__main__":
    unittest.main()
