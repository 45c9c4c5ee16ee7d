class Path:
    def new(self):
        made = object.__new__(self.__class__)
        return made

    def join(self):
        return self.new()

    def check(self):
        return True


def use(path: Path):
    return path.join().check()
