class NodeVisitor:
    def visit(self, node):
        return getattr(self, "visit_" + node.kind)(node)

    def leave(self, node):
        return getattr(self, f"leave_{node.kind}")(node)

    def run(self):
        return getattr(self, "visit")(None)

    def visit_generic(self, node):
        return node


class Unrelated:
    def visit_Name(self, node):
        return node
