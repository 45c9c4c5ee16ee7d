class JsonHandler:
    def handle(self, payload):
        return payload

    def close(self):
        return None


class XmlHandler:
    def handle(self, payload):
        return payload


class Batch:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        self.at = 0
        return self

    def __next__(self):
        raise StopIteration


class Hook:
    def __call__(self, event):
        return event


class Unrelated:
    def handle(self, payload):
        return payload
