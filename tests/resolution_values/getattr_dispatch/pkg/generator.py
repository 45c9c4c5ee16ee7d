from pkg.visitor import NodeVisitor


class CodeGenerator(NodeVisitor):
    def visit_Name(self, node):
        return node

    def visit_Call(self, node):
        return self.visit(node)

    def leave_Call(self, node):
        return node

    def render_Call(self, node):
        return node


def walk(checker, node):
    return getattr(checker, "visit_" + node.kind)(node)
