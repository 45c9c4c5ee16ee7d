class Model:
    def __init__(self, name):
        self.name = name


class Other:
    def __init__(self, name):
        self.name = name
