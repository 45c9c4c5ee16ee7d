import unittest
from collections import UserList


class Items(UserList):
    def first(self):
        return self.data[0]

    def copy(self):
        return Items(self.data)


class Suite(unittest.TestCase):
    def setUp(self):
        self.items = Items([1])

    def check(self, value):
        return value

    def test_first(self):
        self.assertEqual(self.items.first(), 1)

    def test_check(self):
        self.assertTrue(self.check(True))


def fill(items: Items):
    items.extend([2])
