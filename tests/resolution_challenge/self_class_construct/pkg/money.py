class CurrencyMismatch(ValueError):
    def __init__(self, expected: str, actual: str):
        super().__init__(f"{actual} is not {expected}")


class Money:
    def __init__(self, amount_cents: int, currency: str = "EUR"):
        self.amount_cents = amount_cents
        self.currency = currency

    def add(self, other: "Money") -> "Money":
        self.check_currency(other)
        return self.__class__(self.amount_cents + other.amount_cents, self.currency)

    def scale(self, factor: float):
        return type(self)(round(self.amount_cents * factor), self.currency)

    def copy(self):
        return self.__class__(self.amount_cents, self.currency)

    def check_currency(self, other: "Money") -> None:
        if other.currency != self.currency:
            raise CurrencyMismatch(self.currency, other.currency)

    def format(self) -> str:
        return f"{self.amount_cents / 100:.2f} {self.currency}"
