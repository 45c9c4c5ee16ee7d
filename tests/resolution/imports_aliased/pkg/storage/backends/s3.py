"""Object storage backend."""

BUCKET = "sync-bucket"


def upload(key, data):
    return (BUCKET, key, len(data))


def download(key):
    return (BUCKET, key)
