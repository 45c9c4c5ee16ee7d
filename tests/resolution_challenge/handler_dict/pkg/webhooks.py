def handle_payment(payload: dict) -> str:
    return f"payment {payload['id']}"


def handle_refund(payload: dict) -> str:
    return f"refund {payload['id']}"


WEBHOOKS = {"payment": handle_payment, "refund": handle_refund}


def receive(kind: str, payload: dict):
    handler = WEBHOOKS.get(kind)
    if handler is None:
        return None
    return handler(payload)
