def compute(x):
    return x * 2


def audit(x):
    return x


def cleanup(x):
    return x


def never(x=None):
    return x


def on_a(x):
    return x


def on_b(x):
    return x


def kept(x):
    return x
