"""Input validators. Only the names in __all__ are exported by a star import."""

__all__ = ["validate_email", "validate_phone"]


def validate_email(value):
    return "@" in value and _has_domain(value)


def validate_phone(value):
    return value.isdigit()


def normalize(value):
    return value.casefold()


def _has_domain(value):
    return "." in value.rsplit("@", 1)[-1]
