from pkg.setup import as_handler, logged, opaque, setupmethod


class App:
    @setupmethod
    def route(self, rule: str) -> str:
        return rule


@logged
def index() -> str:
    return "index"


def main(app: App, thing: object) -> None:
    app.route("/")
    index()
    as_handler(thing).handle()
    opaque(thing).handle()
