import unittest

from shop.pages import page_count, paginate


class PaginateTest(unittest.TestCase):
    def test_first_page_holds_the_first_items(self):
        self.assertEqual(paginate(list(range(25)), 1), list(range(10)))

    def test_last_page_is_partial(self):
        self.assertEqual(paginate(list(range(25)), 3), [20, 21, 22, 23, 24])

    def test_past_the_end_is_empty(self):
        self.assertEqual(paginate(list(range(25)), 4), [])

    def test_page_zero_is_refused(self):
        with self.assertRaises(ValueError):
            paginate([1, 2, 3], 0)

    def test_page_count(self):
        self.assertEqual(page_count(25, 10), 3)
        self.assertEqual(page_count(0, 10), 1)


if __name__ == "__main__":
    unittest.main()
