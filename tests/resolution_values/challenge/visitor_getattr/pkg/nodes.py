class Node:
    def children(self):
        return []


class Name(Node):
    def __init__(self, ident):
        self.ident = ident


class Call(Node):
    def __init__(self, func, args):
        self.func = func
        self.args = args

    def children(self):
        return [self.func, *self.args]
