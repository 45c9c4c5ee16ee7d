def greet(name):
    return ("hello", name)


def farewell(name):
    return ("bye", name)


def make_greeter():
    return greet


def make_closure(prefix):
    def inner(name):
        return greet(prefix + name)

    return inner


def make_nested():
    def level1():
        def level2():
            return farewell("nested")

        return level2

    return level1


class Service:
    def handle(self, x):
        return x

    def other(self, x):
        return x


def make_method():
    svc = Service()
    return svc.handle


def make_unused():
    return farewell


def pick(flag):
    if flag:
        return greet
    return farewell
