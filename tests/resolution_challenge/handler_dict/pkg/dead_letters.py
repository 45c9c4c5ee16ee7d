class DeadLetterQueue:
    def __init__(self):
        self.items: list[tuple[str, dict]] = []

    def push(self, kind: str, payload: dict) -> None:
        self.items.append((kind, payload))
