from pkg.strategies import STRATEGIES, strategy


def sort_by_name(name, items):
    return strategy(name).sort(items)


def sort_stable(items):
    sorter = STRATEGIES["stable"](reverse=True)
    return sorter.sort(items)
