from pkg.dead_letters import DeadLetterQueue


class EventConsumer:
    def __init__(self, dead_letters: DeadLetterQueue):
        self.dead_letters = dead_letters
        self.handlers = {
            "order.created": self.on_created,
            "order.cancelled": self.on_cancelled,
        }

    def dispatch(self, kind: str, payload: dict):
        if kind not in self.handlers:
            return self.on_unknown(kind, payload)
        return self.handlers[kind](payload)

    def replay(self, events: list[tuple[str, dict]]) -> list:
        results = []
        for kind, payload in events:
            handler = self.handlers.get(kind)
            if handler is not None:
                results.append(handler(payload))
        return results

    def on_created(self, payload: dict):
        return ("created", payload["id"])

    def on_cancelled(self, payload: dict):
        return ("cancelled", payload["id"])

    def on_unknown(self, kind: str, payload: dict) -> None:
        self.dead_letters.push(kind, payload)
