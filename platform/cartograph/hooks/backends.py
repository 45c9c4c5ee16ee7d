"""Where a hook's questions go: the developer's own store (`LocalBackend`), or the team server
over REST with a token (`ServerBackend`, `cartograph hooks install --server URL --token T`).
Both answer the same questions; the events (`hooks.events`) never know which one they ask.

Against the team server an agent's edits never change what other sessions see: the edited
file's text goes into the session's overlay (`agents.overlay`; the server refuses it when
another session holds the file, so claims hold even where a harness runs no hooks, as in
subagents), which that session's reads see and no other's; the shared graph is re-indexed from
pushes, not from edits; the tests come from the server's impact of the file's diff. Locally, the edited
file is re-indexed into the developer's own store by a process of its own (`hooks.refresh`)."""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cartograph.hooks.routes import ROUTES

if TYPE_CHECKING:
    from cartograph.store.interfaces import Store

SERVER_TIMEOUT = 8.0  # seconds a hook waits for the team server
TESTS_SHOWN = 8


@dataclass(slots=True)
class ClaimAnswer:
    granted: bool
    message: str
    holder: int = 0  # the session holding the file when not granted


@dataclass(slots=True)
class HeldFile:
    repo: str
    path: str
    session: int
    agent: str
    task: str


class Backend(Protocol):
    def repo_at(self, cwd: str) -> tuple[str, Path] | None:
        """(repository, its work tree) holding `cwd`, when it is indexed."""

    def start_session(self, agent: str, task: str) -> int: ...
    def alive(self, session: int) -> bool:
        """Keep the session alive; False when it ended or expired."""

    def end_session(self, session: int) -> None: ...
    def claim(self, session: int, repo: str, path: str) -> ClaimAnswer: ...
    def held_files(self, repo: str) -> list[HeldFile]: ...
    def record_edit(self, session: int, repo: str, root: Path, path: str) -> ClaimAnswer:
        """Leave the session's EDITED trail (refused when another session holds the file);
        against the team server, keep the file's new text in the session's overlay."""

    def summary(self, repo: str, root: Path, session: int) -> str: ...
    def locate(self, text: str, repo: str, session: int) -> str | None:
        """The location map for a task, as the session sees the graph, or None when it is not
        confident."""

    def neighbours(self, repo: str, path: str, lines: list[tuple[int, int]] | None) -> set[str]:
        """Files whose code calls the symbols of `path` on `lines` (None: all of its symbols),
        and files that usually change with `path`."""

    def after_edit(
        self, repo: str, root: Path, path: str, lines: list[tuple[int, int]] | None, harness: str
    ) -> str:
        """Bring the graph up to date with an edited file and find the tests that reach the
        edited symbols (`lines`; None: the whole file). What is said now; what is found later
        is left for the harness session's next hook (`events.leave_context`)."""


# ---------------------------------------------------------------- the developer's store


class LocalBackend:
    def __init__(self, store_url: str | None) -> None:
        self.store_url = store_url
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            from cartograph.store import open_store

            self._store = open_store(self.store_url)
        return self._store

    def repo_at(self, cwd: str) -> tuple[str, Path] | None:
        here = Path(cwd).resolve()
        holding = [
            r
            for r in self.store.repos.list_repos()
            if r.root and (here == Path(r.root) or Path(r.root) in here.parents)
        ]
        if not holding:
            return None
        best = max(holding, key=lambda r: len(r.root))
        return best.name, Path(best.root)

    def start_session(self, agent: str, task: str) -> int:
        from cartograph.agents.sessions import start_session

        return start_session(self.store, agent, task).id

    def alive(self, session: int) -> bool:
        from cartograph.agents.sessions import AgentError, heartbeat

        try:
            heartbeat(self.store, session)
        except AgentError:
            return False
        return True

    def end_session(self, session: int) -> None:
        from cartograph.agents.sessions import AgentError, end_session

        # already ended or expired: its claims are over either way
        with contextlib.suppress(AgentError):
            end_session(self.store, session)

    def claim(self, session: int, repo: str, path: str) -> ClaimAnswer:
        from cartograph.agents.sessions import claim

        result = claim(self.store, session, repo, path)
        return ClaimAnswer(
            result.granted, result.message, 0 if result.granted else result.claim.session
        )

    def held_files(self, repo: str) -> list[HeldFile]:
        from cartograph.agents.sessions import claims

        return [
            HeldFile(c.repo, c.path, c.session, c.agent, c.task) for c in claims(self.store, repo)
        ]

    def record_edit(self, session: int, repo: str, root: Path, path: str) -> ClaimAnswer:
        from cartograph.agents.sessions import record_edit

        result = record_edit(self.store, session, repo, path)
        return ClaimAnswer(True, "recorded" if result else "not an indexed file")

    def summary(self, repo: str, root: Path, session: int) -> str:
        from cartograph.hooks.summary import index_summary

        return index_summary(self.store, repo, root, session)

    def locate(self, text: str, repo: str, session: int) -> str | None:
        from cartograph.query.locate import locate, locations_text

        found = locate(self.store, text, repo)
        return locations_text(found) if found.locations else None

    def neighbours(self, repo: str, path: str, lines: list[tuple[int, int]] | None) -> set[str]:
        graph = self.store.graph
        symbols = _touched(graph.symbols_in_files(repo, [path])[path], lines)
        files = {
            row.other.path
            for row in graph.edges_of([s.id for s in symbols], "in", ["CALLS", "REFERENCES"])
            if row.other is not None and row.other.repo == repo
        }
        files |= {c.other for c in self.store.history.cochanges(repo, [path], 2, 10)[path]}
        files.discard(path)
        return files

    def after_edit(
        self, repo: str, root: Path, path: str, lines: list[tuple[int, int]] | None, harness: str
    ) -> str:
        """Re-index the file and look for its tests in a process of their own (a re-index and
        the walk to the tests take longer than a hook should), which leaves the tests for the
        session's next hook."""
        from cartograph.hooks.refresh import start_refresh

        start_refresh(self.store_url, repo, root, path, lines, harness)
        return f"re-indexing {path} in the background; the tests that reach it follow"

    def refresh(self, repo: str, root: Path, path: str, lines: list[tuple[int, int]] | None) -> str:
        """Re-index `path` and name the tests that reach the edited symbols (the worker)."""
        from cartograph.impact.report import tests_reaching
        from cartograph.index import index_repository

        result = index_repository(self.store, root, repo, files=[path], history=False, workers=1)
        said = f"re-indexed {path} ({result.parsed} parsed, {result.reresolved} re-resolved)"
        symbols = _touched(self.store.graph.symbols_in_files(repo, [path])[path], lines)
        if not symbols:
            return said
        tests, commands = tests_reaching(self.store, repo, symbols)
        if not tests:
            return said + "; no test reaches the edited code"
        return said + tests_text(path, [t.node for t in tests], [c.command for c in commands])


def tests_text(path: str, nodes: list[str], commands: list[str]) -> str:
    """The tests to run after an edit, as the agent reads them (the first TESTS_SHOWN)."""
    listed = ", ".join(nodes[:TESTS_SHOWN])
    more = f" and {len(nodes) - TESTS_SHOWN} more" if len(nodes) > TESTS_SHOWN else ""
    run = f"\nrun: {'; '.join(commands)}" if commands else ""
    return f"\ntests that reach your edit of {path}: {listed}{more}{run}"


def _touched(symbols: list, lines: list[tuple[int, int]] | None) -> list:
    """The innermost functions, methods and classes overlapping `lines` (None: every one)."""
    code = [s for s in symbols if s.kind != "module"]
    if lines is None:
        return code
    touched = [
        s for s in code if any(s.start_line <= end and start <= s.end_line for start, end in lines)
    ]
    ids = {s.id for s in touched}
    return [s for s in touched if not any(o.parent == s.id for o in touched if o.id in ids)] or (
        [s for s in symbols if s.kind == "module"]
    )


# ---------------------------------------------------------------- the team server


class ServerError(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail


class ServerBackend:
    """The hooks against a team server: the catalogue's operations over its REST routes."""

    def __init__(self, url: str, token: str | None, repo: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.repo = repo

    def _ask(self, operation: str, as_text: bool = False, **values: Any) -> Any:
        """The server's answer to the catalogue's `operation` (its route: cartograph.hooks.
        routes) with these values under REST's names; its text with `as_text`."""
        import urllib.error
        import urllib.request

        method, path, body = ROUTES[operation].request(values)
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.url}/api/v1{path}", data=data, method=method)
        request.add_header("Accept", "text/plain" if as_text else "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=SERVER_TIMEOUT) as response:
                payload = response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace")
            with contextlib.suppress(ValueError, AttributeError):
                detail = json.loads(detail).get("detail", detail)
            raise ServerError(exc.code, str(detail)) from None
        if as_text:
            return payload
        return json.loads(payload) if payload else None

    def repo_at(self, cwd: str) -> tuple[str, Path] | None:
        root = _git_root(cwd)
        if root is None:
            return None
        if self.repo:
            return self.repo, root
        remote = git_output(root, "remote", "get-url", "origin")
        names = {r["name"]: r for r in self._ask("repos") or []}
        for name, repo in names.items():
            if remote and _same_remote(repo.get("url", ""), remote):
                return name, root
        return (root.name, root) if root.name in names else None

    def start_session(self, agent: str, task: str) -> int:
        return int(self._ask("session-start", agent=agent, task=task)["id"])

    def alive(self, session: int) -> bool:
        try:
            self._ask("session-heartbeat", session=session)
        except ServerError as exc:
            if exc.status in (404, 409):
                return False
            raise
        return True

    def end_session(self, session: int) -> None:
        try:
            self._ask("session-end", session=session)
        except ServerError as exc:
            if exc.status not in (404, 409):
                raise

    def claim(self, session: int, repo: str, path: str) -> ClaimAnswer:
        try:
            answer = self._ask("claim", session=session, repo=repo, path=path, intent="edit")
        except ServerError as exc:
            if exc.status == 409:
                return ClaimAnswer(False, exc.detail, -1)
            raise
        return ClaimAnswer(bool(answer["granted"]), answer["message"])

    def held_files(self, repo: str) -> list[HeldFile]:
        rows = self._ask("claims", repo=repo) or []
        items = rows.get("items", rows) if isinstance(rows, dict) else rows
        return [
            HeldFile(r["repo"], r["path"], int(r["session"]), r["agent"], r["task"]) for r in items
        ]

    def record_edit(self, session: int, repo: str, root: Path, path: str) -> ClaimAnswer:
        body: dict[str, Any] = {"repo": repo, "path": path}
        try:
            body["content"] = (root / path).read_bytes().decode("utf-8", "surrogateescape")
        except FileNotFoundError:
            body["deleted"] = True
        try:
            self._ask("overlay-edit", session=session, **body)
        except ServerError as exc:
            if exc.status == 409:
                return ClaimAnswer(False, exc.detail, -1)
            raise
        return ClaimAnswer(True, "recorded")

    def summary(self, repo: str, root: Path, session: int) -> str:
        from cartograph.hooks.summary import MAX_CHARS, TOOLS

        stats = str(self._ask("stats", as_text=True, repo=repo))
        held = [h for h in self.held_files(repo) if h.session != session]
        lines = [
            f"Cartograph team server {self.url}, repository {repo}; your session is {session} "
            f"(pass session={session} to Cartograph's read tools to see your unpushed edits):",
            stats.strip()[:900],
        ]
        if held:
            lines.append(
                "Claimed by other sessions: "
                + "; ".join(f"{h.path} by session {h.session} ({h.agent})" for h in held[:5])
            )
        lines.append(TOOLS)
        return "\n".join(lines)[:MAX_CHARS]

    def locate(self, text: str, repo: str, session: int) -> str | None:
        # as the session sees the graph: its overlay (the edits it has not pushed) included
        answer = self._ask("locate", text=text, repo=repo, session=session)
        if not answer or not answer.get("locations"):
            return None
        return str(self._ask("locate", as_text=True, text=text, repo=repo, session=session))

    def neighbours(self, repo: str, path: str, lines: list[tuple[int, int]] | None) -> set[str]:
        found = self._ask("co-changes", target=path, repo=repo) or {}
        return {p["name"] for p in found.get("partners", []) if p.get("name") != path}

    def after_edit(
        self, repo: str, root: Path, path: str, lines: list[tuple[int, int]] | None, harness: str
    ) -> str:
        said = (
            "your session's reads (pass `session`) see this version; the others see the shared "
            "graph until your push is indexed"
        )
        patch = git_output(root, "diff", "--no-color", "HEAD", "--", path)
        if not patch:
            return said
        answer = self._ask("impact", repo=repo, patch=patch + "\n") or {}
        nodes = [t["node"] for t in answer.get("tests", [])]
        if not nodes:
            return said
        commands = [c["command"] for c in answer.get("test_commands", [])]
        return said + tests_text(path, nodes, commands)


def git_output(root: Path, *args: str) -> str:
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _git_root(cwd: str) -> Path | None:
    top = git_output(Path(cwd), "rev-parse", "--show-toplevel")
    return Path(top) if top else None


def _same_remote(a: str, b: str) -> bool:
    def key(url: str) -> str:
        url = url.strip().rstrip("/").removesuffix(".git").lower()
        return url.split("://", 1)[-1].split("@", 1)[-1].replace(":", "/")

    return bool(a) and key(a) == key(b)
