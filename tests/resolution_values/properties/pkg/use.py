from pkg.accounts import Account, Order


def read(acc: Account):
    return acc.balance


def write(acc: Account):
    acc.balance = 5


def remove(acc: Account):
    del acc.balance


def read_total(order: Order):
    return order.total


def read_quantity(order: Order):
    return order.quantity


def write_quantity(order: Order):
    order.quantity = 3


def untyped(thing):
    return thing.balance


def on_class():
    return Account.balance
