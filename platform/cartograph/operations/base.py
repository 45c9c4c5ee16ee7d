"""What the catalogue is made of: a `Param` (a typed parameter with its default, bounds and how
each surface spells it), an `Operation` (the library function it calls, its parameters, scope,
answer type, help, and how each surface exposes it) and the `Services` a call may need beyond
the store."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cartograph.errors import CartographError
from cartograph.operations.values import Choice, CommaList, Flag, InvalidValue, ValueType
from cartograph.query.answers import answer, cacheable, is_cacheable

if TYPE_CHECKING:
    from cartograph.jobs import JobRunner, JobState
    from cartograph.model import ApiToken
    from cartograph.store.interfaces import Store


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()  # the default of a parameter that must be given
SURFACES = ("cli", "mcp", "rest", "graphql")
SCOPES = ("read", "claims", "admin")
# the MCP tool sets a server lists (`cartograph mcp --profile`): what an investigating and
# editing agent needs by default; the rest opt in. An operation's profile defaults by its scope.
PROFILES = ("agent", "explore", "team", "admin")
DEFAULT_PROFILE = {"read": "explore", "claims": "team", "admin": "admin"}


@dataclass(frozen=True)
class Param:
    name: str  # what MCP and the library's answers call it (snake_case)
    value: ValueType
    default: Any = REQUIRED
    help: str = ""
    minimum: int | None = None  # bounds of a whole number, both included
    maximum: int | None = None
    # how the CLI writes it: a positional argument, or an option (`--max-depth`, derived from
    # the name unless `cli` says otherwise: `--references` for `include_references`); a flag
    # with a true default is written as its negation (`--no-history`)
    positional: bool = False
    cli: str | None = None
    short: str | None = None  # a one-letter alias (`-o`)
    # where REST takes it ("path", "query" or "body") and under which name (`q`, `references`)
    rest: str = "query"
    rest_name: str | None = None
    graphql: str | None = None  # the GraphQL argument's name, when a field takes it
    arg: str | None = None  # the library function's keyword, when it is not `name`
    # a repository that may be left out: then the indexed one holding the current folder, or
    # the only one in the store
    picked: bool = False
    surfaces: tuple[str, ...] = SURFACES  # a parameter only one surface has (parser processes)
    # given to the call's Services (its field of this name), not to the library function: the
    # session a read is made in
    to_services: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def choices(self) -> tuple[str, ...] | None:
        if isinstance(self.value, Choice | CommaList):
            return self.value.choices
        return None

    @property
    def is_flag(self) -> bool:
        return isinstance(self.value, Flag)

    def spelled(self, surface: str) -> str:
        """The parameter's name as `surface` writes it."""
        if surface == "cli":
            if self.positional:
                return self.name
            return self.cli or "--" + self.name.replace("_", "-")
        if surface == "rest":
            return self.rest_name or self.name
        if surface == "graphql":
            if self.graphql:
                return self.graphql
            head, *rest = self.name.split("_")
            return head + "".join(word.capitalize() for word in rest)
        return self.name

    def parse(self, value: Any, spelled: str | None = None) -> Any:
        """The value normalised and checked (bounds, choices, lengths), or InvalidValue with a
        message naming the parameter as the caller spelled it."""
        spelled = spelled or self.name
        if value is None:
            if self.required:
                raise InvalidValue(f"`{spelled}` is required")
            return None
        value = self.value.normalise(value, spelled)
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = self.minimum, self.maximum
            if (low is not None and value < low) or (high is not None and value > high):
                if low is not None and high is not None:
                    raise InvalidValue(f"`{spelled}` is {low} to {high}")
                if low is not None:
                    raise InvalidValue(f"`{spelled}` is at least {low}")
                raise InvalidValue(f"`{spelled}` is at most {high}")
        return value


@dataclass(frozen=True)
class Cli:
    words: tuple[str, ...]  # ("callers",), ("repo", "add")
    progress: bool = False  # progress on stderr (unless --quiet or --json)
    output_file: bool = False  # --output/-o FILE instead of stdout


@dataclass(frozen=True)
class Rest:
    method: str
    path: str  # under /api/v1; `{name}` is a path parameter (`{symbol:path}`: may hold a /)
    status: int = 200
    # an answer that is a refusal on REST (a claim another session holds: 409)
    refusal: Callable[[Any], CartographError | None] | None = None
    media_type: str | None = None  # an answer streamed as lines (application/x-ndjson)


@dataclass
class Services:
    """What an operation may need besides the store; each surface provides them."""

    store: Store
    cwd: str | None = None  # where a picked repository is looked for (default: the current folder)
    runner: JobRunner | None = None  # sync jobs: queued on it; None: run in the caller
    data_dir: Path | None = None  # mirrors and worktrees (default: CARTOGRAPH_DATA)
    progress: Callable[[str], None] | None = None  # indexing progress messages
    # the token of the person or agent calling (None: no token, this machine's own user); the
    # team operations act only in sessions it opened (cartograph.agents.sessions.may_act)
    caller: ApiToken | None = None
    # the agent session the call is made in (`?session=`, the X-Cartograph-Session header): a
    # read sees that session's overlay, its unpushed edits (cartograph.agents.overlay)
    session: int | None = None
    # a read's budget (`max_tokens`; None: the whole answer) and where a cut answer goes on
    # from (`cursor`): cartograph.budget
    max_tokens: int | None = None
    cursor: str | None = None

    @property
    def job_state(self) -> JobState | None:
        return self.runner.state if self.runner is not None else None

    def folder(self) -> str | None:
        """The folder a picked repository is looked for in (None: it cannot be read)."""
        if self.cwd is None:
            try:
                self.cwd = os.getcwd()
            except OSError:  # the current folder was removed
                return None
        return self.cwd

    def get(self, name: str) -> Any:
        if name == "data_dir" and self.data_dir is None:
            from cartograph.sync import default_data_dir

            self.data_dir = default_data_dir()
        return getattr(self, name)


@dataclass(frozen=True)
class Operation:
    name: str  # the catalogue's name: "search", "token-create"
    function: Callable[..., Any]  # the library function: function(store, **arguments)
    answer: Any  # the answer's type (what render.py renders)
    scope: str  # "read", "claims" or "admin"
    help: str  # one line (the CLI's help)
    params: tuple[Param, ...] = ()
    description: str = ""  # for agents (the MCP tool's description); default: help
    services: tuple[str, ...] = ()  # Services fields the function takes as keywords
    cli: Cli | None = None
    mcp: str | None = None  # the MCP tool's name
    rest: Rest | None = None
    graphql: str | None = None  # the GraphQL field that answers the same question
    # what a call does, for agents (MCP's tool annotations): changes nothing (default: the
    # `read` scope does not), removes or ends something, gives the same result when repeated
    # (default: when it changes nothing), reaches beyond Cartograph (a remote, a forge)
    read_only: bool | None = None
    destructive: bool = False
    idempotent: bool | None = None
    open_world: bool = False
    # answers over the calling session's overlay when there is one (default: the reads of the
    # `read` scope); impact compares a change with the shared graph, so it does not
    sees_overlay: bool | None = None
    # the MCP profile its tool is listed in (PROFILES; default: by scope, DEFAULT_PROFILE)
    profile: str | None = None

    def __post_init__(self) -> None:
        assert self.scope in SCOPES, self.scope
        assert self.profile is None or self.profile in PROFILES, self.profile
        names = [p.name for p in self.params]
        assert len(names) == len(set(names)), f"{self.name}: a parameter is declared twice"

    @property
    def text(self) -> str:
        return self.description or self.help

    @property
    def mcp_profile(self) -> str:
        return self.profile or DEFAULT_PROFILE[self.scope]

    @property
    def changes_nothing(self) -> bool:
        return self.read_only if self.read_only is not None else self.scope == "read"

    @property
    def in_session_view(self) -> bool:
        return self.sees_overlay if self.sees_overlay is not None else self.scope == "read"

    @property
    def repeatable(self) -> bool:
        return self.idempotent if self.idempotent is not None else self.changes_nothing

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(f"{self.name} has no parameter {name!r}")

    def on(self, surface: str) -> list[Param]:
        """The parameters `surface` offers."""
        return [p for p in self.params if surface in p.surfaces]

    @property
    def paged(self) -> bool:
        """Answers a page at a time (`limit`, `offset`; the answer's `next_offset`)."""
        return any(p.name == "offset" for p in self.params)

    def bind(self, values: Mapping[str, Any], surface: str | None = None) -> dict[str, Any]:
        """Every parameter's value, normalised and checked; defaults for those not given."""
        unknown = set(values) - {p.name for p in self.params}
        if unknown:
            raise InvalidValue(f"{self.name} takes no parameter {sorted(unknown)[0]!r}")
        bound = {}
        for param in self.params:
            given = values.get(param.name, param.default)
            if given is REQUIRED:
                given = None  # parse says it is required
            bound[param.name] = param.parse(given, param.spelled(surface) if surface else None)
        return bound

    def run(self, services: Services, values: Mapping[str, Any], surface: str | None = None) -> Any:
        """Call the library function with the values (checked again: a surface's own checks
        came from the same parameters) and the services it takes. A read whose function is
        `cacheable` goes through the answer cache (keyed by the values and the folder a
        repository is picked in; cartograph.query.answers, which leaves overlays alone)."""
        bound = self.bind(values, surface)
        for param in self.params:
            if param.to_services and bound[param.name] is not None:
                setattr(services, param.name, bound[param.name])
        store = services.store
        if self.in_session_view and services.session is not None:
            from cartograph.agents.overlay import session_view

            store = session_view(store, services.session, services.caller)
        if is_cacheable(self.function) and not self.services:
            given = tuple(sorted(self.asked(bound).items()))
            return answer(store, _answer_of, self.name, given, services.folder())
        return self.call(store, services, bound)

    def asked(self, bound: Mapping[str, Any]) -> dict[str, Any]:
        """The values that make the question (not those given to the services: the session,
        the budget)."""
        return {p.name: bound[p.name] for p in self.params if not p.to_services}

    @property
    def budgeted(self) -> bool:
        """Takes `max_tokens` and `cursor` (cartograph.budget)."""
        return any(p.name == "max_tokens" for p in self.params)

    def call(self, store: Store, services: Services, bound: Mapping[str, Any]) -> Any:
        """The library function on `store` with bound values (a picked repository picked)."""
        from cartograph.query.common import pick_repo

        arguments: dict[str, Any] = {}
        for param in self.params:
            if param.to_services:
                continue
            value = bound[param.name]
            if param.picked:
                value = pick_repo(store, value, services.folder())
            arguments[param.arg or param.name] = value
        for name in self.services:
            arguments[name] = services.get(name)
        return self.function(store, **arguments)


@cacheable  # an operation is run through it only when its function is cacheable
def _answer_of(store: Store, name: str, bound: tuple, folder: str | None) -> Any:
    """What the catalogue's operation `name` answers for these bound values, a repository left
    out being picked in `folder` (what the answer cache keeps)."""
    from cartograph.operations.catalogue import operation

    return operation(name).call(store, Services(store, cwd=folder), dict(bound))
