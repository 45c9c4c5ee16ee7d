class Storage:
    def connect(self):
        return "storage"

    def describe(self):
        return "plain storage"


class CachedStorage(Storage):
    def get(self, key):
        return None

    def flush(self):
        return "cache flushed"


class LoggedStorage(Storage):
    def connect(self):
        return "logged storage"

    def flush(self):
        return "log flushed"
