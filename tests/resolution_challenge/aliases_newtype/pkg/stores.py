class MemoryStore:
    def __init__(self):
        self._data: dict[str, object] = {}

    def get(self, key: str):
        return self._data.get(key)

    def set(self, key: str, value) -> None:
        self._data[key] = value


class RedisStore:
    def __init__(self, url: str = "redis://localhost:6379/0"):
        self.url = url

    def get(self, key: str):
        return None

    def set(self, key: str, value) -> None:
        print("SET", key, value)


DefaultStore = RedisStore
