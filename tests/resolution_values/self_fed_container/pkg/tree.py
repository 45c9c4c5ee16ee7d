def start():
    return "start"


def other():
    return "other"


def relink(nodes):
    """A table filled from itself in loops (as networkx's gomory_hu_tree does): whatever is
    copied around, its elements are `start` and `other`."""
    tree = {}
    for node in nodes:
        tree[node] = start
    for source in tree:
        target = tree[source]
        tree[source] = tree[target]
        tree[target] = other
        tree[tree[source]] = tree[tree[target]]
    for source in tree:
        tree[source]()
