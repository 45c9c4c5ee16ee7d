class Flask:
    def __init__(self, name):
        self.name = name
        self.view_functions = {}

    def route(self, rule):
        def decorator(view):
            self.add_url_rule(rule, view_func=view)
            return view

        return decorator

    def add_url_rule(self, rule, view_func):
        self.view_functions[rule] = view_func

    def dispatch_request(self, path):
        view = self.view_functions[path]
        return view()
