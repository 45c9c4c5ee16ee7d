"""The values Python's resolution computes with, and what is shared about them.

A value is a tuple tagged by its kind (resolve/python.py's module docstring lists them); this
module holds the rules about values that several parts of the resolver and its plugins share.
"""

from __future__ import annotations

MAX_UNION = 8  # members a union value holds; more is not a value worth following


def alternatives(value: tuple) -> tuple:
    """The values `value` may be: a union's members, else the value itself."""
    return value[1] if value[0] == "union" else (value,)


def union_of(values: list) -> tuple | None:
    """One value for several: the value itself when they are all the same, else a union of
    the distinct ones (unions flattened); None for none, or more than MAX_UNION."""
    members: list = []
    for value in values:
        for member in alternatives(value):
            if member not in members:
                members.append(member)
    if not members or len(members) > MAX_UNION:
        return None
    return members[0] if len(members) == 1 else ("union", tuple(members))
