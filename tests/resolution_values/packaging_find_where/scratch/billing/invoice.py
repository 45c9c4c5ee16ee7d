def total(amount):
    return amount
