"""Text helpers."""


def slugify(value):
    return "-".join(str(value).lower().split())
