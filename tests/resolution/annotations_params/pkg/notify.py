from typing import Optional

from pkg.services import EmailService, SmsService


def welcome(service: EmailService, address):
    return service.send(address, "Welcome!")


def reminder(service: Optional[EmailService], address):
    if service is not None:
        service.send(address, "Your trial ends tomorrow")


def alert(service: SmsService | None, number):
    if service:
        service.send(number, "Unusual login")


def digest(service: "EmailService", address):
    return service.send(address, "Your weekly digest")


class Broadcaster:
    def broadcast(self, email: EmailService, sms: SmsService, message):
        email.send("all@example.com", message)
        sms.send("+15550100", message)
