"""Public API of the checksum package."""
from .impl import Hasher as DefaultHasher
from .impl import compute_checksum
