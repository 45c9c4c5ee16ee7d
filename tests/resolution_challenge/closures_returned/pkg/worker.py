from pkg.handlers import make_handler, make_retrying


def process(message: dict) -> str:
    return make_handler("email")(message)


def process_batch(messages: list[dict]) -> list[str]:
    handler = make_handler("sms")
    return [handler(message) for message in messages]


def fetch_with_retry() -> str:
    return make_retrying(3)(lambda: "ok")
