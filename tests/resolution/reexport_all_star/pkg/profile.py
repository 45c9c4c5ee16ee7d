import pkg


def headline(first, last):
    return pkg.format_name(first, last)
