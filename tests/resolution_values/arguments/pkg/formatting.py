from pkg.handlers import default_format


def show(payload, fmt=default_format):
    return fmt(payload)
