class EmailService:
    def send(self, address, body):
        return ("email", address, body)


class SmsService:
    def send(self, number, body):
        return ("sms", number, body)
