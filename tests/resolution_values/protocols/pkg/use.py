from pkg.kinds import AppError, Bag, Countdown, Session, Vector


def loop_bag():
    total = 0
    for item in Bag([1, 2]):
        total += item
    return total


def loop_countdown():
    return [n for n in Countdown(3)]


def lookup(bag: Bag, key):
    if key in bag:
        return bag[key]
    return len(bag)


def with_session():
    with Session() as session:
        return session.query("select 1")


def make_session():
    return Session()


def fail():
    raise AppError("boom")


def fail_bare():
    raise AppError


def arithmetic(a: Vector, b: Vector):
    c = a + b
    if a == b or a < b:
        return c(2)
    return c
