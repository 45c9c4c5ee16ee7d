class Client:
    def __init__(self, endpoint):
        self.endpoint = endpoint

    def send(self, message):
        return (self.endpoint, message)


def default_endpoint():
    return "https://hooks.example.com"


default = Client(default_endpoint())


def broadcast(message):
    return default.send(message)
