class QuickSort:
    def sort(self, items):
        return sorted(items)


class StableSort:
    def __init__(self, reverse=False):
        self.reverse = reverse

    def sort(self, items):
        return sorted(items, reverse=self.reverse)


class ExperimentalSort:
    def sort(self, items):
        return items


STRATEGIES = {"quick": QuickSort, "stable": StableSort}


def strategy(name):
    return STRATEGIES[name]()
