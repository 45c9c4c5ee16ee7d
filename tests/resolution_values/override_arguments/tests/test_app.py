from pkg.app import App
from pkg.scaffold import register


def about() -> str:
    return "about"


def test_routes() -> None:
    app = App()

    @app.route("/")
    def index() -> str:
        return "index"

    @app.get("/items")
    def items() -> str:
        return "items"

    register(app, "/about", about)
    assert app.dispatch_request("/") == "index"
    assert app.dispatch_request("/about") == "about"
