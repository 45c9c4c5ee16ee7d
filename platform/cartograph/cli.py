"""The `cartograph` command. Its commands are the catalogue's operations (cartograph.operations:
one command per operation, its arguments from the operation's parameters), plus `mcp`, `hook`
(what an agent's harness runs: cartograph.hooks, started without the catalogue so a hook is
quick), and the commands the optional parts add through entry points (`serve`, from the
server)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cartograph.errors import CartographError
from cartograph.safetext import visible

if TYPE_CHECKING:
    from cartograph.operations import Operation, Param

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


# ---------------------------------------------------------------- running an operation


def run_operation(
    op: Operation, command: argparse.ArgumentParser, args: argparse.Namespace
) -> None:
    from cartograph.operations import InvalidValue, Services
    from cartograph.plugins import configured_job_runner
    from cartograph.render import streamed
    from cartograph.store import open_store

    values = {param.name: getattr(args, param.name) for param in op.on("cli")}
    try:
        values = op.bind(values, "cli")
    except InvalidValue as exc:
        command.error(str(exc))  # a usage error (exit 2), like argparse's own
    services = Services(open_store(args.store))
    if {"runner", "job_state"} & set(op.services):
        services.runner = configured_job_runner()
    if op.cli is not None and op.cli.progress and not (args.json or args.quiet):
        services.progress = lambda message: print(f"… {visible(message)}", file=sys.stderr)
    if values.get("max_tokens") or values.get("cursor"):  # an answer within a budget
        from cartograph.answering import run_fitted

        fitted = run_fitted(op, services, values, "cli", "json" if args.json else "text")
        pieces: Iterable[str] = [fitted.text + "\n"]
    else:
        pieces = streamed(op.run(services, values, "cli"), args.json, op.answer)
    output = getattr(args, "output", None)
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    try:
        for piece in pieces:
            out.write(piece)
    finally:
        if out is not sys.stdout:
            out.close()


def cmd_hooks(args: argparse.Namespace) -> None:
    """`hooks install` / `hooks uninstall`: this machine's own harness settings (the command
    line only: a server has no business writing its host's agent settings)."""
    from cartograph.hooks.install import install_hooks, uninstall_hooks
    from cartograph.render import render, to_json
    from cartograph.store import open_store

    store = open_store(args.store)
    if args.hooks_command == "install":
        done = install_hooks(store, args.agent, args.scope, args.project, args.server,
                             args.token, args.repo)  # fmt: skip
    else:
        done = uninstall_hooks(store, args.agent, args.scope, args.project)
    print(to_json(done) if args.json else render(done), end="" if not args.json else "\n")


def _add_hooks_commands(top: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    from cartograph.hooks.install import AGENTS, SCOPES

    text = "Cartograph in an agent's harness: Claude Code, Gemini CLI, Cursor, Codex"
    holder = top.add_parser("hooks", parents=[common], help=text, description=text)
    actions = holder.add_subparsers(dest="hooks_command", required=True, metavar="ACTION")
    install = actions.add_parser(
        "install", parents=[common], help="wire Cartograph into an agent's harness",
        description="For Claude Code: its hooks merged into .claude/settings.json (never "
        "touching your own; running it again changes nothing), the graph-aware exploring "
        "subagent and the MCP server in .mcp.json. For Gemini CLI: the hooks and MCP server in "
        ".gemini/settings.json and rules in GEMINI.md. For Cursor and Codex: the MCP server and "
        "the rules that say when to use which tool.",
    )  # fmt: skip
    uninstall = actions.add_parser(
        "uninstall", parents=[common], help="take out exactly what `hooks install` put in"
    )
    for command in (install, uninstall):
        command.add_argument("--agent", choices=AGENTS, default="claude",
                             help="the harness (default: claude)")  # fmt: skip
        command.add_argument("--scope", choices=SCOPES, default="project",
                             help="project: the project's folders; user: your home's, for "
                             "every project (default: project)")  # fmt: skip
        command.add_argument("--project", default=None,
                             help="the project's folder (default: the current one)")  # fmt: skip
        command.set_defaults(handler=cmd_hooks)
    install.add_argument("--server", default=None,
                         help="the team server's URL (default: the local store)")  # fmt: skip
    install.add_argument("--token", default=None, help="a token for the team server (kept in "
                         "~/.config/cartograph/hooks.json, never in the project)")  # fmt: skip
    install.add_argument("--repo", default=None, help="the repository's name on the team "
                         "server (default: the one whose URL is the work tree's origin)")  # fmt: skip


def cmd_mcp(args: argparse.Namespace) -> None:
    from cartograph.mcp_server import run_stdio

    run_stdio(args.store, args.profile)


# ---------------------------------------------------------------- parser


def _converter(param: Param):
    from cartograph.operations import InvalidValue

    """argparse's `type` for a parameter: the command-line word as a value, checked."""

    def convert(text: str) -> Any:
        try:
            return param.parse(param.value.from_text(text))
        except InvalidValue as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = param.name  # argparse names it in "invalid <name> value"
    return convert


def _help(param: Param) -> str:
    text = param.help
    bounds = ""
    if param.minimum is not None and param.maximum is not None:
        bounds = f"{param.minimum} to {param.maximum}"
    elif param.minimum is not None:
        bounds = f"at least {param.minimum}"
    if bounds and param.default is not None and not param.required and "default" not in text:
        bounds += f", default {param.default}"
    return f"{text} ({bounds})" if bounds else text


def add_param(command: argparse.ArgumentParser, param: Param) -> None:
    from cartograph.operations.values import Choice, TextList

    spelled = param.spelled("cli")
    if param.is_flag:
        action = "store_false" if param.default is True else "store_true"
        command.add_argument(spelled, action=action, dest=param.name, help=param.help)
        return
    options: dict[str, Any] = {"help": _help(param)}
    if isinstance(param.value, Choice):
        options["choices"] = param.value.choices
    elif not isinstance(param.value, TextList):
        options["type"] = _converter(param)
    if isinstance(param.value, TextList):
        options["nargs"] = "+"
        options["metavar"] = param.name.rstrip("s").upper()
    if param.positional:
        if not param.required:
            options["nargs"] = "*" if isinstance(param.value, TextList) else "?"
            options["default"] = param.default
        command.add_argument(param.name, **options)
        return
    names = [spelled, *([param.short] if param.short else [])]
    if param.required:
        options["required"] = True
    else:
        options["default"] = param.default
    command.add_argument(*names, dest=param.name, **options)


def build_parser() -> argparse.ArgumentParser:
    from cartograph.operations import CATALOGUE, COMMAND_GROUPS
    from cartograph.plugins import commands

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store",
        default=argparse.SUPPRESS,
        help="store URL: sqlite:///path/graph.db or neo4j://host:7687 (default: $CARTOGRAPH_STORE "
        "or ~/.local/share/cartograph/graph.db)",
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="JSON output"
    )

    parser = argparse.ArgumentParser(
        prog="cartograph",
        description="A code graph for coding agents: index repositories, then ask where things "
        "are, who calls them and what they reach.",
        parents=[common],
    )
    top = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    groups: dict[str, argparse._SubParsersAction] = {}

    def container(words: tuple[str, ...]) -> argparse._SubParsersAction:
        if not words:
            return top
        (group,) = words  # commands nest one level: `repo add`
        if group not in groups:
            text = COMMAND_GROUPS[group]
            holder = top.add_parser(group, parents=[common], help=text, description=text)
            groups[group] = holder.add_subparsers(
                dest=f"{group}_command", required=True, metavar="ACTION"
            )
        return groups[group]

    for op in CATALOGUE:
        if op.cli is None:
            continue
        *group, word = op.cli.words
        command = container(tuple(group)).add_parser(
            word, parents=[common], help=op.help, description=op.text
        )
        for param in op.on("cli"):
            add_param(command, param)
        if op.cli.progress:
            command.add_argument("--quiet", action="store_true", help="no progress messages")
        if op.cli.output_file:
            command.add_argument("--output", "-o", help="file to write (default: stdout)")
        command.set_defaults(
            handler=lambda args, op=op, command=command: run_operation(op, command, args)
        )

    mcp = top.add_parser(
        "mcp", parents=[common], help="run the MCP server on stdio (for Claude Code, Cursor, "
        "Codex, ...)"
    )  # fmt: skip
    from cartograph.operations.base import PROFILES

    mcp.add_argument("--profile", default=os.environ.get("CARTOGRAPH_MCP_PROFILES"),
                     help="the tools listed, comma-separated: " + ", ".join(PROFILES) +
                     " or all (default: $CARTOGRAPH_MCP_PROFILES, else agent: a dozen tools "
                     "for investigating and editing)")  # fmt: skip
    mcp.set_defaults(handler=cmd_mcp)
    _add_hooks_commands(top, common)
    top.add_parser(
        "hook",
        help="run one agent-harness hook (Claude Code): the event's JSON on stdin, the answer's "
        "on stdout; `cartograph hooks install` wires them",
    ).add_argument("event", help="session-start, prompt, pre-edit, post-edit, pre-task, "
                   "pre-search or session-end")  # fmt: skip
    for add_command in commands():  # `serve`, when the server is installed
        add_command(top, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["hook"]:  # a harness's hook: quick, and never a parse error
        from cartograph.hooks.run import main as run_hook

        return run_hook(arguments[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    args.store = getattr(args, "store", None)
    args.json = getattr(args, "json", False)
    try:
        args.handler(args)
    except CartographError as exc:
        # an error may quote what a repository holds (a path, a name): shown, never obeyed
        print("cartograph: " + visible(" ".join(str(exc).split())), file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
