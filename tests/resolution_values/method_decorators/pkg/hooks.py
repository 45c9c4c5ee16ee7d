class Hooks:
    def __init__(self):
        self.funcs = []

    def add(self, f):
        self.funcs.append(f)
        return f

    def run(self):
        for func in list(self.funcs):
            func()
