import unittest


class Money:
    pass


class MoneyCase(unittest.TestCase):
    def setUp(self):
        self.addTypeEqualityFunc(Money, "assertMoneyEqual")

    def assertMoneyEqual(self, first, second, msg=None):
        return first is second

    def test_money(self):
        self.assertEqual(Money(), Money())
