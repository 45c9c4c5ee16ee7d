class Address:
    def __init__(self, street: str, city: str, postcode: str):
        self.street = street
        self.city = city
        self.postcode = postcode

    def format_label(self) -> str:
        return f"{self.street}\n{self.postcode} {self.city}"


class Wallet:
    def __init__(self, balance: int = 0):
        self.balance = balance

    def can_pay(self, amount: int) -> bool:
        return self.balance >= amount


class Customer:
    def __init__(self, name: str, address: Address):
        self.name = name
        self._address = address
        self._wallet = None

    @property
    def address(self) -> Address:
        return self._address

    @property
    def wallet(self) -> "Wallet":
        if self._wallet is None:
            self._wallet = Wallet()
        return self._wallet

    @property
    def display_name(self):
        return self.name.title()
