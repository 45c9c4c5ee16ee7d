"""Display formatting. No __all__: a star import takes the public names only."""


def format_name(first, last):
    return f"{_clean(first)} {_clean(last)}"


def _clean(part):
    return part.strip().title()
