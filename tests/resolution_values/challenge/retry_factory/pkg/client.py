from pkg.retrying import retry


class TransientError(Exception):
    pass


class Client:
    def __init__(self, url):
        self.url = url

    @retry(times=5, exceptions=(TransientError,))
    def get(self, path):
        return self.url + path

    def get_many(self, paths):
        return [self.get(p) for p in paths]


@retry()
def ping(client: Client):
    return client.get("/ping")


def unrelated():
    return "no retry"
