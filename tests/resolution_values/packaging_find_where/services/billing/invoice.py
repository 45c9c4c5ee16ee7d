from .tax import vat


def total(amount):
    return amount + vat(amount)
