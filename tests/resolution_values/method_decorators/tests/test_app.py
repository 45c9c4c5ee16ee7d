from pkg.app import App
from pkg.errors import App as ErrorApp
from pkg.real import Registry
from pkg.hooks import Hooks


def test_teardown():
    app = App()

    @app.teardown
    def cleanup():
        return None

    app.do_teardown()


def test_hooks():
    hooks = Hooks()

    @hooks.add
    def on_run():
        return None

    hooks.run()


def test_registry():
    registry = Registry()

    @registry.teardown
    def close():
        return None

    @registry.before
    def prepare():
        return None

    registry.do_before(None)
    registry.do_teardown()


def test_errors():
    app = ErrorApp()

    @app.errorhandler(404)
    def not_found(error):
        return error

    app.handle(404)
