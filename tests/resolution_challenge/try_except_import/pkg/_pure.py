"""Pure-Python fallback with the same interface."""


class Compressor:
    def compress(self, data: bytes) -> bytes:
        return data


def encode(payload: dict) -> bytes:
    return repr(sorted(payload.items())).encode()


def decode(data: bytes) -> dict:
    return {}


def crc32(data: bytes) -> int:
    return sum(data) & 0xFFFFFFFF
