class EventBus:
    def __init__(self):
        self.handlers = {}

    def register(self, event, handler):
        self.handlers[event] = handler

    def emit(self, event, payload):
        return self.handlers[event](payload)
