import unittest
from collections import UserDict


class Table(UserDict):
    def __missing__(self, key):
        return self.fallback(key)

    def fallback(self, key):
        return key

    def keys(self):
        return list(self.data)


class Suite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.shared = Table()

    def setUp(self):
        self.table = Table()

    def fail(self, msg=None):
        raise AssertionError(msg)

    def check(self, value):
        return value

    def test_first(self):
        self.assertEqual(self.table.get("a"), "a")

    def test_check(self):
        self.assertTrue(self.check(True))

    def test_raises(self):
        self.assertRaises(KeyError, self.check, 1)

    def test_sub(self):
        with self.subTest(value=1):
            self.check(1)


def lookup(table: Table):
    return table.get("key")

