RATES = {"FR": 0.2, "DE": 0.19}


def tax_for(amount, country):
    return amount * RATES[country]
