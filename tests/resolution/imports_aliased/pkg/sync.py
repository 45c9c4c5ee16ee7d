import pkg.storage.backends.s3 as s3
from pkg.storage import local as disk
from pkg.storage.local import save as save_locally


def push(path, data):
    save_locally(path, data)
    s3.upload(path, data)


def pull(path):
    return s3.download(path)


def backup(path, data):
    return disk.save(path + ".bak", data)


def save(path, data):
    """Sync-level save: writes to both destinations."""
    push(path, data)
    return backup(path, data)
