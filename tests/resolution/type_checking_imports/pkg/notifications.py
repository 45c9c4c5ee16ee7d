"""Notifications; models are imported for type checking only (avoids an import cycle)."""
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import User


def greeting(user: "User"):
    return "Hello, " + user.display_name()


class Mailer:
    def send_welcome(self, user: "User"):
        return self.deliver(user.email, greeting(user))

    def deliver(self, address, body):
        return (address, body)
