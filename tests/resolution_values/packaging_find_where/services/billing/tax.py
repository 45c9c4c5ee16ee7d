def vat(amount):
    return amount * 0.2
