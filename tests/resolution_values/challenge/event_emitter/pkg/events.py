class Emitter:
    def __init__(self):
        self._listeners = {}

    def on(self, event, listener):
        self._listeners.setdefault(event, []).append(listener)
        return listener

    def emit(self, event, *args):
        for listener in self._listeners.get(event, []):
            listener(*args)
