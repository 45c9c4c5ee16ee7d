from acme.core.engine import start


def main():
    return start({})
