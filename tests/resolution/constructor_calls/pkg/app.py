from pkg.clients import ClientError, Config, HttpClient, RetryPolicy, Token


def build():
    config = Config()
    token = Token("secret")
    client = HttpClient("https://api.example.com")
    policy = RetryPolicy(config.retries)
    return policy(client.get), token


def fail(reason):
    raise ClientError(reason)
