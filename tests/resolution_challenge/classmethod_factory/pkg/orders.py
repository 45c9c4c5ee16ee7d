"""Orders are created through classmethod factories, never with the bare constructor."""

from __future__ import annotations

from typing import Self


class LineItem:
    def __init__(self, sku: str, quantity: int, unit_price: int):
        self.sku = sku
        self.quantity = quantity
        self.unit_price = unit_price

    def subtotal(self) -> int:
        return self.quantity * self.unit_price


class Order:
    def __init__(self, customer_id: str, items: list[LineItem]):
        self.customer_id = customer_id
        self.items = items
        self.status = "new"

    @classmethod
    def create(cls, customer_id: str, items: list[LineItem]) -> Order:
        order = cls(customer_id, items)
        order.validate()
        return order

    @classmethod
    def empty(cls, customer_id: str) -> Self:
        return cls(customer_id, [])

    def validate(self) -> None:
        if not self.customer_id:
            raise ValueError("order without customer")

    def total(self) -> int:
        return sum(item.subtotal() for item in self.items)

    def submit(self) -> None:
        self.status = "submitted"


class RushOrder(Order):
    def expedite(self) -> None:
        self.status = "expedited"
