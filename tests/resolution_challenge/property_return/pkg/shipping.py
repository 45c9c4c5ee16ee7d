from pkg.accounts import Customer


class Parcel:
    def __init__(self, weight_grams: int):
        self.weight_grams = weight_grams

    def format_label(self) -> str:
        return f"{self.weight_grams} g"


def shipping_label(customer: Customer) -> str:
    return customer.display_name + "\n" + customer.address.format_label()


def checkout_allowed(customer: Customer, amount: int) -> bool:
    wallet = customer.wallet
    return wallet.can_pay(amount)
