"""Low-level text helpers."""


def normalize(value):
    return " ".join(value.split())


def _clean(value):
    return value.strip()
