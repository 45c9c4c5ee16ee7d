from acme.billing.tax import tax_for


class Invoice:
    def __init__(self, amount, country):
        self.amount = amount
        self.country = country

    def total(self):
        return self.amount + tax_for(self.amount, self.country)


def issue_invoice(amount, country) -> Invoice:
    return Invoice(amount, country)
