import functools
from functools import partial

from pkg.channels import log_delivery, send_email, send_sms


class Notifier:
    def __init__(self, admin_email: str):
        self.admin_email = admin_email
        self.alert_admin = partial(send_email, admin_email, "Alert")
        self.on_done = functools.partial(log_delivery, "email")
        self.render = partial(self.format_body, "[ALERT]")

    def format_body(self, prefix: str, text: str) -> str:
        return f"{prefix} {text}"

    def alert(self, text: str) -> None:
        self.alert_admin(self.render(text))
        self.on_done(self.admin_email, "sent")


def sms_sender(number: str):
    return partial(send_sms, number)


def notify_ops(body: str) -> None:
    sms_sender("+15550100")(body)
    partial(send_email, "ops@example.com", "Ops")(body)
