class Registry:
    def __init__(self):
        self.funcs = []
        self.before_funcs = {}

    def teardown(self, f):
        self.funcs.append(f)
        return f

    def do_teardown(self):
        for func in reversed(self.funcs):
            func()

    def before(self, f):
        self.before_funcs.setdefault(None, []).append(f)
        return f

    def do_before(self, name):
        for func in reversed(self.before_funcs[name]):
            func()
