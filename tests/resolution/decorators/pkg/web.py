class App:
    def __init__(self):
        self.routes = {}

    def route(self, path):
        def register(handler):
            self.routes[path] = handler
            return handler

        return register
