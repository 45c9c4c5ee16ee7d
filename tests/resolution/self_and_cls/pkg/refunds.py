class Refund:
    def __init__(self, order):
        self.order = order

    def recalculate(self):
        return -self.order.recalculate()

    def price_of(self, line):
        return -line["price"]

    def total(self):
        return self.recalculate()
