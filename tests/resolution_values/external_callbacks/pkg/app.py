import atexit

from werkzeug.test import Client


class App:
    def __call__(self, environ, start_response):
        return self.dispatch(environ)

    def dispatch(self, environ):
        return environ

    def test_client(self) -> "AppClient":
        return AppClient(self)


class AppClient(Client):
    def open(self, *args, **kwargs):
        return super().open(*args, **kwargs)

    def _builder(self):
        return None


class Plain:
    def get(self):
        return 1


def cleanup():
    return None


def register():
    atexit.register(cleanup)


def use(client: AppClient, plain: Plain):
    client.get("/")
    plain.get()
