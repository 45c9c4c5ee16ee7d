import pkg
from pkg.impl import compute_checksum


def verify(payload, expected):
    return compute_checksum(payload) == expected


def verify_via_package(payload, expected):
    return pkg.compute_checksum(payload) == expected
