from pkg.money import Money


def cart_total(prices: list[Money]) -> Money:
    total = Money(0)
    for price in prices:
        total = total.add(price)
    return total


def discounted(price: Money, percent: int) -> str:
    return price.scale(1 - percent / 100).format()


def duplicate(price: Money) -> str:
    return price.copy().format()
