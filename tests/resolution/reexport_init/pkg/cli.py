from pkg import DefaultHasher, compute_checksum


def checksum_command(payload):
    return compute_checksum(payload)


def hasher_command(payload):
    hasher = DefaultHasher()
    return hasher.digest(payload)
