class Bag:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        yield from self.items

    def __getitem__(self, key):
        return self.items[key]

    def __contains__(self, item):
        return item in self.items

    def __len__(self):
        return len(self.items)


class Countdown:
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def __next__(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current


class Session:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def query(self, sql):
        return sql


class AppError(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message


class Vector:
    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Vector(self.x + other.x)

    def __eq__(self, other):
        return self.x == other.x

    def __lt__(self, other):
        return self.x < other.x

    def __call__(self, factor):
        return Vector(self.x * factor)


class Other:
    def __iter__(self):
        return iter(())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __add__(self, other):
        return other

    def __getitem__(self, key):
        return key
