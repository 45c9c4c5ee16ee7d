class App:
    def __init__(self):
        self.error_handler_spec = {}

    def errorhandler(self, code):
        def decorator(f):
            self.register_error_handler(code, f)
            return f

        return decorator

    def register_error_handler(self, code, f):
        self.error_handler_spec.setdefault(None, {})[code] = f

    def _find_handler(self, code):
        handler_map = self.error_handler_spec[None]
        handler = handler_map.get(code)
        return handler

    def handle(self, code):
        handler = self._find_handler(code)
        return handler(code)
