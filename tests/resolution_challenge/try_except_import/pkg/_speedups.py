"""Accelerated backend (in production a compiled extension that may be missing)."""

import zlib


class Compressor:
    def __init__(self, level: int = 9):
        self.level = level

    def compress(self, data: bytes) -> bytes:
        return zlib.compress(data, self.level)


def encode(payload: dict) -> bytes:
    return repr(sorted(payload.items())).encode()


def decode(data: bytes) -> dict:
    return {"raw": zlib.decompress(data)}


def crc32(data: bytes) -> int:
    return zlib.crc32(data)


def tuning() -> int:
    return 9
