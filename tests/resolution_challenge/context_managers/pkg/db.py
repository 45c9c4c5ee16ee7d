class Connection:
    def __init__(self, dsn: str):
        self.dsn = dsn
        self.open = True

    def execute(self, sql: str, *params) -> list:
        return [(sql, params)]

    def close(self) -> None:
        self.open = False


class Pool:
    def __init__(self, dsn: str, size: int = 5):
        self.dsn = dsn
        self.size = size
        self._idle: list[Connection] = []

    def __enter__(self) -> "Connection":
        if self._idle:
            return self._idle.pop()
        return Connection(self.dsn)

    def __exit__(self, exc_type, exc, tb) -> None:
        return None

    def close(self) -> None:
        for connection in self._idle:
            connection.close()
        self._idle = []


class Transaction:
    def __init__(self, connection: Connection):
        self.connection = connection

    def __enter__(self):
        self.connection.execute("BEGIN")
        return self

    def __exit__(self, exc_type, exc, tb):
        self.connection.execute("ROLLBACK" if exc_type else "COMMIT")
        return False

    def insert(self, table: str, row: dict) -> None:
        self.connection.execute(f"INSERT INTO {table} VALUES (%s)", row)
