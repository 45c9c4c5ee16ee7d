"""Implementation details; import from `pkg` or `pkg.impl` instead."""


class Hasher:
    def __init__(self, algorithm="adler"):
        self.algorithm = algorithm

    def digest(self, data):
        return compute_checksum(data)


def compute_checksum(data):
    return sum(data) % 65521
