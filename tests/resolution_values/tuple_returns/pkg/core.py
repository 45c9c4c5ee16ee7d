from __future__ import annotations


class Context:
    def invoke(self):
        return 1


class Command:
    def make_context(self) -> Context:
        return Context()

    def main(self):
        name, cmd, rest = self.resolve_command()
        cmd.make_context()
        pair = self.resolve_command()
        pair[1].make_context()
        (first, (second, third)) = self.nested()
        third.invoke()

    def resolve_command(self) -> tuple[str | None, Command | None, list[str]]:
        return "x", Command(), []

    def nested(self) -> tuple[str, tuple[int, Context]]:
        return "a", (1, Context())
