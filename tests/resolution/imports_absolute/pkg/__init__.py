"""Shop package."""


def version():
    return "1.4.0"
