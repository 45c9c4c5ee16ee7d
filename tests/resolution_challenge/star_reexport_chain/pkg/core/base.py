"""Serializer base. `load` is public but not exported: `from base import *` skips it."""

__all__ = ["Serializer", "dump"]


class Serializer:
    def serialize(self, obj) -> str:
        return _encode(obj)


def dump(obj, stream) -> None:
    stream.write(Serializer().serialize(obj))


def load(text: str) -> list[str]:
    return text.split(",")


def _encode(obj) -> str:
    return repr(obj)
