from pkg.base import Connection


class HttpClient(Connection):
    def get(self, path):
        return (self.url, path)


class Config:
    retries = 3


class Token:
    def __init__(self, value):
        self.value = value


class RetryPolicy:
    def __init__(self, attempts):
        self.attempts = attempts

    def __call__(self, func):
        return func


class ClientError(Exception):
    """Raised when a request fails."""
