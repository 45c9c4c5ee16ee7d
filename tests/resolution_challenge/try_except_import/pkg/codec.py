try:
    from pkg._speedups import Compressor, decode, encode
except ImportError:
    from pkg._pure import Compressor, decode, encode


def pack(payload: dict) -> bytes:
    return Compressor().compress(encode(payload))


def unpack(data: bytes) -> dict:
    return decode(data)


def checksum(data: bytes) -> int:
    try:
        from pkg._speedups import crc32
    except ImportError:
        from pkg._pure import crc32
    return crc32(data)


def compression_level() -> int:
    try:
        from pkg._speedups import tuning
    except ImportError:
        tuning = None
    if tuning is None:
        return 6
    return tuning()
