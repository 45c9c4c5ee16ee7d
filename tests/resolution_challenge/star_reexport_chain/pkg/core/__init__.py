"""Serialization core: everything formats exports, plus configuration."""

from . import formats
from .formats import *

__all__ = formats.__all__ + ["configure"]

DEFAULT_INDENT = 2


def configure(indent: int = DEFAULT_INDENT) -> dict:
    return {"indent": indent}
