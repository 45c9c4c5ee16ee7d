class App:
    def __init__(self):
        self.teardown_funcs = []

    def teardown(self, f):
        self.teardown_funcs.append(f)
        return f

    def do_teardown(self):
        for func in reversed(self.teardown_funcs):
            func()


def reversed(items):
    return []
