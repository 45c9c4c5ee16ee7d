class PaymentGateway:
    def charge(self, amount):
        return {"charged": amount}
