from pkg.core import Command, Context, Registry, Timer, command


@command("hello")
def hello() -> str:
    return "hi"


def say() -> str:
    return "say"


def tock() -> None:
    pass


def test_commands() -> None:
    assert hello.invoke(Context()) == "hi"
    assert Command("say", callback=say).run_directly() == "say"
    Timer(tock).tick()


def test_registry() -> None:
    registry = Registry()

    @registry.register("page")
    def page() -> str:
        return "page"

    assert registry.dispatch("page") == "page"
