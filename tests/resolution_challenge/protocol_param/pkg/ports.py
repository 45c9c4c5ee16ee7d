from typing import Protocol


class PaymentGateway(Protocol):
    def charge(self, customer_id: str, amount_cents: int) -> str: ...

    def refund(self, charge_id: str) -> None: ...
