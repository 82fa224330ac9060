import unittest

from billing import gross_total, net_total


class BillingTest(unittest.TestCase):
    def test_net_total(self):
        self.assertEqual(net_total([(10.0, 2), (5.0, 1)]), 25.0)

    def test_gross_total_adds_vat_once(self):
        # A customer was charged 144.00 for a 100.00 order (ticket #412).
        self.assertEqual(gross_total([(100.0, 1)]), 120.0)


if __name__ == "__main__":
    unittest.main()
