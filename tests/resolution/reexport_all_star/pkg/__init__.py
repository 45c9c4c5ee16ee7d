"""Signup helpers; the package exposes every public formatting helper."""
from .formatting import *
