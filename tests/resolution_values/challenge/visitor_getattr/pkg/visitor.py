class NodeVisitor:
    def visit(self, node):
        method = getattr(self, "visit_" + type(node).__name__)
        return method(node)

    def generic_visit(self, node):
        for child in node.children():
            self.visit(child)


class NameCollector(NodeVisitor):
    def __init__(self):
        self.names = []

    def visit_Name(self, node):
        self.names.append(node.ident)

    def visit_Call(self, node):
        self.generic_visit(node)

    def unrelated(self, node):
        return node
