def send_email(recipient: str, subject: str, body: str) -> None:
    print(f"mail to {recipient}: {subject}\n{body}")


def send_sms(number: str, body: str) -> None:
    print(f"sms to {number}: {body}")


def log_delivery(channel: str, recipient: str, status: str) -> None:
    print(f"[{channel}] {recipient}: {status}")
