from ._core import Hasher, compute_checksum

__all__ = ["Hasher", "compute_checksum"]
