"""Database sessions and the factories that open them."""


class Session:
    def query(self, sql):
        return [sql]

    def close(self):
        return None


class ReadOnlySession:
    def query(self, sql):
        return [sql]

    def close(self):
        return None


def open_session() -> Session:
    return Session()


def open_replica() -> ReadOnlySession:
    return ReadOnlySession()
