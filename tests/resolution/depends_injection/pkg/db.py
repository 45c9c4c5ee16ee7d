class Session:
    def __init__(self, url="sqlite://"):
        self.url = url

    def query(self, table):
        return [table]

    def add(self, row):
        return row


def get_db() -> Session:
    return Session()
