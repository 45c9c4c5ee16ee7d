"""Price calculations."""

TAX_RATE = 0.2


def apply_tax(amount):
    return round(amount * (1 + TAX_RATE), 2)


def discount(amount, percent):
    return amount - amount * percent / 100
