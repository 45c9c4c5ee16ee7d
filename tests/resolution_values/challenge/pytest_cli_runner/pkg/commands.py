class Command:
    def __init__(self, callback):
        self.callback = callback

    def main(self, args):
        return self.callback(*args)


def command(func):
    return Command(func)


@command
def greet(name):
    return f"hello {name}"


def farewell(name):
    return f"bye {name}"
