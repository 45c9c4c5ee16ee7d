"""Concrete formats; re-exports the base names by extending base.__all__."""

from . import base
from .base import *

__all__ = base.__all__ + ["JsonSerializer", "dumps"]


class JsonSerializer(Serializer):
    def serialize(self, obj) -> str:
        return "{" + super().serialize(obj) + "}"


def dumps(obj) -> str:
    return JsonSerializer().serialize(obj)


def pretty(obj) -> str:
    return dumps(obj).replace(",", ",\n")
