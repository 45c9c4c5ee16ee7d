from pkg.orders import LineItem, Order, RushOrder


def place_order(customer_id: str, skus: list[tuple[str, int, int]]) -> int:
    items = [LineItem(sku, qty, price) for sku, qty, price in skus]
    order = Order.create(customer_id, items)
    order.submit()
    return order.total()


def start_cart(customer_id: str) -> Order:
    cart = Order.empty(customer_id)
    cart.validate()
    return cart


def quick_total(customer_id: str) -> int:
    return Order.create(customer_id, []).total()


def rush(customer_id: str) -> RushOrder:
    order = RushOrder.empty(customer_id)
    order.expedite()
    order.submit()
    return order
