"""Old pricing rules, kept for archived orders only."""


def apply_tax(amount):
    return amount * 1.25


def discount(amount, percent):
    return amount
