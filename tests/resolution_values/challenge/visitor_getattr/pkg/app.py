from pkg.nodes import Call, Name
from pkg.visitor import NameCollector


def collect():
    tree = Call(Name("f"), [Name("x")])
    collector = NameCollector()
    collector.visit(tree)
    return collector.names
