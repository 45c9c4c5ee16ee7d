from pkg.gateways import FakeGateway, StripeGateway
from pkg.ports import PaymentGateway


class BillingService:
    def __init__(self, gateway: PaymentGateway):
        self.gateway = gateway

    def bill(self, customer_id: str, amount_cents: int) -> str:
        return self.gateway.charge(customer_id, amount_cents)

    def cancel(self, charge_id: str) -> None:
        self.gateway.refund(charge_id)


def settle(gateway: PaymentGateway, charge_ids: list[str]) -> None:
    for charge_id in charge_ids:
        gateway.refund(charge_id)


def production_billing() -> BillingService:
    return BillingService(StripeGateway())


def sandbox_billing() -> BillingService:
    return BillingService(FakeGateway())
