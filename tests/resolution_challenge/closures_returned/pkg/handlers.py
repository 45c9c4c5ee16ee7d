from collections.abc import Callable

AUDIT_LOG: list[str] = []


def audit(event: str) -> None:
    AUDIT_LOG.append(event)


def format_message(channel: str, message: dict) -> str:
    return f"[{channel}] {message['body']}"


def make_handler(channel: str) -> Callable[[dict], str]:
    def handle(message: dict) -> str:
        audit(f"{channel}:{message['id']}")
        return format_message(channel, message)

    return handle


def make_retrying(attempts: int):
    def run(task):
        for _ in range(attempts - 1):
            try:
                return task()
            except TimeoutError:
                audit("retry")
        return task()

    return run
