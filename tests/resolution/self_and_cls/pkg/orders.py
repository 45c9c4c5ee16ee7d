"""Orders: dispatch through self and cls inside one class."""


class Order:
    def __init__(self, lines):
        self.lines = self.clean(lines)
        self.listeners = [self.recalculate]

    @classmethod
    def empty(cls):
        return cls.from_lines([])

    @classmethod
    def from_lines(cls, lines):
        return Order(lines)

    @staticmethod
    def clean(lines):
        return [line for line in lines if line is not None]

    def price_of(self, line):
        return line["qty"] * line["price"]

    def recalculate(self):
        return sum(self.price_of(line) for line in self.lines)

    def by_price(self):
        return sorted(self.lines, key=self.price_of, reverse=True)

    def submit(self, gateway):
        return gateway.charge(self.recalculate())


def blank_order():
    return Order.empty()
