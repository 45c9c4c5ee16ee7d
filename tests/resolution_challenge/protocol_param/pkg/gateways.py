"""Implementations satisfy PaymentGateway structurally; none of them inherits from it."""


class StripeGateway:
    def charge(self, customer_id: str, amount_cents: int) -> str:
        return f"ch_{customer_id}_{amount_cents}"

    def refund(self, charge_id: str) -> None:
        print("refunding", charge_id)


class FakeGateway:
    def __init__(self):
        self.charges: list[str] = []

    def charge(self, customer_id: str, amount_cents: int) -> str:
        self.charges.append(customer_id)
        return f"fake_{len(self.charges)}"

    def refund(self, charge_id: str) -> None:
        self.charges.remove(charge_id)
