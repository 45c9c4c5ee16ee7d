from functools import cached_property


class Positive:
    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        return getattr(obj, self.name)

    def __set__(self, obj, value):
        setattr(obj, self.name, value)


class Account:
    def __init__(self, balance):
        self._balance = balance

    @property
    def balance(self):
        return self._balance

    @balance.setter
    def balance(self, value):
        self._balance = value

    @balance.deleter
    def balance(self):
        self._balance = 0

    def describe(self):
        return f"balance {self.balance}"


class Order:
    quantity = Positive()

    @cached_property
    def total(self):
        return 42


class Other:
    @property
    def balance(self):
        return 0
