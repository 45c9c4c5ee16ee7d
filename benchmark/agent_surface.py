"""What an agent pays for Cartograph's MCP surface: the tool list its client loads, the size of
the answers it reads, and whether a stock MCP client lists and calls every tool.

1. Tool lists. For each MCP profile (`cartograph.operations.base.PROFILES`) and for all of
   them, `cartograph.mcp_server.build_server(store_url, profiles=...)` is listed by the MCP
   SDK's client (`mcp.Client`, in process) and serialized as the client receives it:
   `json.dumps([t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools])`.
   Reported: tools, characters, `cartograph.budget.estimate_tokens` (Cartograph's conservative
   count) and, with `--tokenizers DIR` (a folder whose node_modules hold the npm packages
   gpt-tokenizer@4.0.0 and @anthropic-ai/tokenizer@0.0.4; `--install-tokenizers` installs them
   with npm into ~/.cache/cartograph/tokenizers), the o200k_base count (OpenAI's GPT-4o/o-series
   encoding) and Claude's legacy published tokenizer's count; "not measured" without them. Also
   the share of descriptions, input and output schemas and annotations, and the largest tools.

2. Answer sizes. Django 5.1.4 (the sdist, `benchmark.corpora`) committed into a fresh git
   repository and indexed into a SQLite store under the work folder (history mined: one
   commit). A team at work is set up through the catalogue (three sessions with claims, read
   and edit trails, an overlay edit and lessons), tokens are created, the tree is tracked, and
   a pull request's report is stored (the impact of a real patch, as the webhook path stores
   it). Then every read tool of every profile — the catalogue's operations with `budgeted` and
   an MCP name — is asked on typical subjects (`cases`) through `answering.run_fitted(op,
   Services(store), values, "mcp", form)`, the call the MCP server makes: the text whole
   (`max_tokens` None: its computing time is "computed"; the process's answer cache is cold
   for it), the text within the default budget (AGENT_MAX_TOKENS; the cache is warm, so its
   time is the cut), and the JSON form (`as_json`) whole and within the budget. Every answer
   within the budget must have `estimate_tokens(text) <= AGENT_MAX_TOKENS`; every cut answer's
   cursor is followed until no cursor is given, and the pages' lists are compared with the
   whole answer's (every item once, in order).

3. The MCP Inspector CLI (`npx -y @modelcontextprotocol/inspector --cli`, the version npm
   resolves for this node) lists the tools of each profile of `cartograph mcp --profile P` over
   stdio and calls each of them once with minimal valid arguments on a small indexed repository
   (click 8.1.7, committed into a fresh git repository): an answer, a tool error (`isError`,
   with its message) or a protocol failure (the Inspector exits non-zero). Skipped, with a
   note, when `npx` is missing or with `--no-inspector`.

The machine is watched while the harness runs: the load average and the processes outside this
harness that used CPU (another engineer's tests share the 2 cores).

    python -m benchmark.agent_surface [--repo-tree DIR] [--tokenizers DIR]
        [--install-tokenizers] [--no-inspector] [--no-write] [--keep-work]

Writes benchmark/results/agent-surface-<date>.md and .json."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import difflib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cartograph.answering import run_fitted
from cartograph.budget import AGENT_MAX_TOKENS, CUT_KEY, Fitted, estimate_tokens
from cartograph.errors import CartographError
from cartograph.impact.text import markdown as impact_markdown
from cartograph.index import index_repository
from cartograph.mcp_server import INSTRUCTIONS, build_server
from cartograph.model import Review
from cartograph.operations import CATALOGUE, Operation, Services, operation
from cartograph.operations.base import PROFILES
from cartograph.render import to_data
from cartograph.store import open_store
from cartograph.store.interfaces import Store

from benchmark.corpora import fetch
from benchmark.report import run_facts, write_report

NAME = "agent-surface"
WORK = Path(__file__).parent / ".work" / "agent-surface"
TOKENIZER_CACHE = Path.home() / ".cache" / "cartograph" / "tokenizers"
TOKENIZER_PACKAGES = {"gpt-tokenizer": "4.0.0", "@anthropic-ai/tokenizer": "0.0.4"}
INSPECTOR = "@modelcontextprotocol/inspector"
# the tool list before this round's work, measured with the same SDK call at commit 1fbd7db
BEFORE = {"commit": "1fbd7db", "tools": 50, "characters": 216_412}
PROFILE_SETS: dict[str, tuple[str, ...]] = {**{p: (p,) for p in PROFILES}, "all": PROFILES}
MAX_PAGES = 100  # a cut answer's cursor is followed at most this far
FOLLOW_SECONDS = 30.0  # nor for longer than this
SLOW_MS = 1000.0  # calls slower than this (median) are listed
THIN_CUT = 0.25  # a cut answer using less than this share of the budget is listed
INSPECTOR_TIMEOUT = 300


def count_tokens(text: str, chunk: int = 1 << 20) -> int:
    """`estimate_tokens` of a text of any size, counted a chunk at a time (a chunk ends before
    a character that is neither an ASCII letter nor a digit: no token spans such a cut)."""
    if len(text) <= chunk:
        return estimate_tokens(text)
    boundary = re.compile(r"[^A-Za-z\d]")
    total, start = 0, 0
    while start < len(text):
        end = start + chunk
        found = boundary.search(text, end) if end < len(text) else None
        end = found.start() if found else len(text)
        total += estimate_tokens(text[start:end])
        start = end
    return total


def working_tree() -> dict[str, Any]:
    """Where the library was imported from and, when it is this checkout's platform/, its
    uncommitted changes (platform/, api/: what the numbers depend on) with a digest of their
    diff, to tell whether they changed while the harness ran."""
    import hashlib

    import cartograph.budget  # cartograph is a namespace package (platform/, api/)

    library = Path(cartograph.budget.__file__).resolve().parent.parent
    if library != Path(__file__).resolve().parent.parent / "platform":
        return {"library": str(library), "uncommitted": [], "diff_sha1": ""}

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args, "--", "platform", "api"],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).parent.parent,
        ).stdout

    changed = [line[3:] for line in git("status", "--porcelain").splitlines()]
    digest = hashlib.sha1(git("diff", "HEAD").encode()).hexdigest()[:10]
    return {"library": str(library), "uncommitted": changed, "diff_sha1": digest if changed else ""}


# ------------------------------------------------------------------ the machine, watched


class MachineWatch:
    """Samples the load average and the CPU time of the processes outside this harness's own
    process tree every `every` seconds (Linux /proc), in a thread."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.loads: list[float] = []
        self.others: dict[str, float] = {}  # command line -> CPU seconds seen used
        self._last: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._ticks = os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> MachineWatch:
        self._sample(first=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def _sample(self, first: bool = False) -> None:
        self.loads.append(float(Path("/proc/loadavg").read_text().split()[0]))
        parents: dict[int, int] = {}
        cpu: dict[int, tuple[float, str]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            pid = int(entry.name)
            parents[pid] = int(fields[1])
            cpu[pid] = ((int(fields[11]) + int(fields[12])) / self._ticks, command.strip())
        ours = {os.getpid()}
        grew = True
        while grew:  # this harness and everything it started
            grew = False
            for pid, parent in parents.items():
                if parent in ours and pid not in ours:
                    ours.add(pid)
                    grew = True
        for pid, (seconds, command) in cpu.items():
            used = seconds - self._last.get(pid, seconds if first else 0.0)
            self._last[pid] = seconds
            if pid in ours or not command or used <= 0:
                continue
            name = command[:120]
            self.others[name] = self.others.get(name, 0.0) + used

    def summary(self) -> dict[str, Any]:
        busy = sorted(self.others.items(), key=lambda item: -item[1])
        return {
            "load_average_1min": {
                "mean": round(statistics.mean(self.loads), 2),
                "max": round(max(self.loads), 2),
                "samples": len(self.loads),
            },
            "other_processes_cpu_s": [
                {"command": command, "cpu_s": round(seconds, 1)}
                for command, seconds in busy
                if seconds >= 2.0
            ][:12],
        }


# ------------------------------------------------------------------------ real tokenizers

COUNT_SCRIPT = """
const path = require('path');
const { createRequire } = require('module');
const load = createRequire(path.join(process.argv[1], 'noop.js'));
const { encode } = load('gpt-tokenizer/encoding/o200k_base');
const { countTokens } = load('@anthropic-ai/tokenizer');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const counted = JSON.parse(input).map((text) => {
    let o200k = null, claude = null;
    try { o200k = encode(text, { allowedSpecial: 'all' }).length; } catch (e) {}
    try { claude = countTokens(text); } catch (e) {}
    return [o200k, claude];
  });
  process.stdout.write(JSON.stringify(counted));
});
"""


@dataclass
class Tokenizers:
    """The real tokenizers, through node: o200k_base (gpt-tokenizer) and Claude's legacy
    published tokenizer (@anthropic-ai/tokenizer). `folder` None: not measured."""

    folder: Path | None
    versions: dict[str, str] = field(default_factory=dict)
    problem: str = ""

    @classmethod
    def find(cls, folder: Path | None, install: bool) -> Tokenizers:
        if folder is None and install:
            problem = install_tokenizers(TOKENIZER_CACHE)
            if problem:
                return cls(None, problem=problem)
            folder = TOKENIZER_CACHE
        if folder is None and (TOKENIZER_CACHE / "node_modules").is_dir():
            folder = TOKENIZER_CACHE
        if folder is None:
            return cls(None, problem="no --tokenizers folder given")
        if shutil.which("node") is None:
            return cls(None, problem="node is not installed")
        versions = {}
        for package in TOKENIZER_PACKAGES:
            manifest = folder / "node_modules" / package / "package.json"
            if not manifest.is_file():
                return cls(None, problem=f"{package} is not installed in {folder}")
            versions[package] = json.loads(manifest.read_text())["version"]
        found = cls(folder, versions)
        try:
            found.count(["a test"])
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            return cls(None, problem=f"the tokenizers do not run: {exc}")
        return found

    @property
    def available(self) -> bool:
        return self.folder is not None

    def count(self, texts: list[str]) -> list[tuple[int | None, int | None]]:
        """(o200k_base, Claude legacy) tokens of each text (None: that tokenizer failed)."""
        if self.folder is None or not texts:
            return [(None, None)] * len(texts)
        done = subprocess.run(
            ["node", "-e", COUNT_SCRIPT, str(self.folder)],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            check=True,
            timeout=1800,
        )
        return [(o200k, claude) for o200k, claude in json.loads(done.stdout)]


def install_tokenizers(folder: Path) -> str:
    """npm install the tokenizer packages into `folder` ("" when done, else why not)."""
    if shutil.which("npm") is None:
        return "npm is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    packages = [f"{name}@{version}" for name, version in TOKENIZER_PACKAGES.items()]
    done = subprocess.run(
        ["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund", *packages],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    return "" if done.returncode == 0 else f"npm install failed: {done.stderr.strip()[-300:]}"


# ----------------------------------------------------------------------- 1. the tool lists


def listed_tools(store_url: str, profiles: tuple[str, ...]) -> tuple[list[dict], str]:
    """The tools a client lists from a server of these profiles (as the client receives them)
    and the server's instructions."""
    from mcp import Client

    async def listing() -> tuple[list[dict], str]:
        async with Client(build_server(store_url, profiles=profiles)) as client:
            tools = (await client.list_tools()).tools
            instructions = client.instructions or ""
        dumped = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
        return dumped, instructions

    return asyncio.run(listing())


PARTS = {
    "descriptions": "description",
    "input schemas": "inputSchema",
    "output schemas": "outputSchema",
    "annotations": "annotations",
}


def measure_tool_lists(store_url: str, tokenizers: Tokenizers) -> dict[str, Any]:
    profiles: dict[str, Any] = {}
    texts: list[str] = []  # for the real tokenizers, in one batch
    for name, profile_set in PROFILE_SETS.items():
        tools, instructions = listed_tools(store_url, profile_set)
        text = json.dumps(tools)
        parts: dict[str, dict[str, int]] = {}
        for label, key in PARTS.items():
            pieces = [json.dumps(tool[key]) for tool in tools if key in tool]
            parts[label] = {
                "characters": sum(map(len, pieces)),
                "estimate": sum(map(estimate_tokens, pieces)),
            }
        rows = []
        for tool in tools:
            dumped = json.dumps(tool)
            row = {
                "name": tool["name"],
                "characters": len(dumped),
                "estimate": estimate_tokens(dumped),
            }
            for label, key in PARTS.items():
                row[label] = len(json.dumps(tool[key])) if key in tool else 0
            rows.append(row)
        rows.sort(key=lambda row: -row["characters"])
        texts += [json.dumps(next(t for t in tools if t["name"] == row["name"])) for row in rows]
        texts.append(text)
        profiles[name] = {
            "profiles": list(profile_set),
            "tools": len(tools),
            "names": [tool["name"] for tool in tools],
            "characters": len(text),
            "estimate": estimate_tokens(text),
            "parts": parts,
            "per_tool": rows,
            "instructions_characters": len(instructions),
        }
    texts.append(INSTRUCTIONS)
    counted = iter(tokenizers.count(texts))
    for row in profiles.values():
        for tool in row["per_tool"]:
            tool["o200k"], tool["claude"] = next(counted)
        row["o200k"], row["claude"] = next(counted)
    o200k, claude = next(counted)
    instructions = {
        "characters": len(INSTRUCTIONS),
        "estimate": estimate_tokens(INSTRUCTIONS),
        "o200k": o200k,
        "claude": claude,
    }
    return {"profiles": profiles, "instructions": instructions, "before": BEFORE}


# --------------------------------------------------------------- 2. answer sizes on Django


def commit_tree(source: Path, root: Path) -> None:
    """`source` copied to `root` as a git repository of one commit on `main`."""
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git"))
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        [
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.com",
            "commit",
            "-q",
            "-m",
            "sdist",
        ],
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True)


def patch_of(root: Path, path: str, old: str, new: str) -> str:
    """A unified diff of one replacement in one file of the tree (git's a/ b/ paths)."""
    text = (root / path).read_text()
    if text.count(old) != 1:
        raise RuntimeError(f"{path}: the patched text is not found once: {old!r}")
    changed = text.replace(old, new)
    lines = difflib.unified_diff(
        text.splitlines(keepends=True),
        changed.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(lines)


# (label, path, old text, new text): small real edits of Django
DJANGO_PATCHES = [
    (
        "capfirst: a body line changed",
        "django/utils/text.py",
        "    return x[0].upper() + x[1:]\n",
        "    return x[:1].upper() + x[1:]\n",
    ),
    (
        "force_str: `encoding` made required (breaks callers)",
        "django/utils/encoding.py",
        'def force_str(s, encoding="utf-8", strings_only=False, errors="strict"):\n',
        'def force_str(s, encoding, strings_only=False, errors="strict"):\n',
    ),
    (
        "QuerySet.filter: a body line changed",
        "django/db/models/query.py",
        "        return self._filter_or_exclude(False, args, kwargs)\n\n    def exclude",
        "        return self._filter_or_exclude(False, args=args, kwargs=kwargs)\n\n"
        "    def exclude",
    ),
    (
        "BaseHandler.get_response: a body line changed (every request)",
        "django/core/handlers/base.py",
        "        response = self._middleware_chain(request)\n"
        "        response._resource_closers.append(request.close)\n",
        "        response = self._middleware_chain(request)\n"
        "        response._resource_closers.insert(0, request.close)\n",
    ),
    (
        "reverse: a keyword-only parameter added",
        "django/urls/base.py",
        "def reverse(viewname, urlconf=None, args=None, kwargs=None, current_app=None):\n",
        "def reverse(viewname, urlconf=None, args=None, kwargs=None, current_app=None, *, "
        "query=None):\n",
    ),
]

# (what it is, qualified name)
DJANGO_SYMBOLS = [
    ("big class", "django.db.models.query.QuerySet"),
    ("big class", "django.db.models.base.Model"),
    ("class", "django.http.response.HttpResponse"),
    ("method", "django.db.models.query.QuerySet.filter"),
    ("hub function", "django.urls.base.reverse"),
    ("hub function", "django.utils.translation.gettext"),
    ("hub function", "django.utils.encoding.force_str"),
    ("small helper", "django.utils.text.capfirst"),
    ("module", "django.db.models.query"),
]
HUBS = [
    "django.urls.base.reverse",
    "django.utils.translation.gettext",
    "django.utils.encoding.force_str",
]
SEARCHES = [
    "QuerySet",
    "reverse url",
    "cache middleware",
    "password hasher",
    "form field validation",
    "select_related prefetch",
]
# written in the style of Django's Trac tickets
LOCATE_TEXTS = [
    "QuerySet.bulk_create() crashes when update_conflicts is used with unique_fields on a "
    "model whose field has a db_column in mixed case",
    "The admin changelist loses the active filters after saving an object opened from the "
    "related-object popup",
    "makemigrations generates an AlterField on every run for a ForeignKey to a model with a "
    "custom primary key",
    "JSONField __contains lookup returns wrong results on SQLite for nested arrays",
    "The test client does not keep the request method when following a 307 redirect",
    "reverse() raises NoReverseMatch for a URL pattern with an optional named group",
]
PATHS = [
    (
        "django.core.handlers.base.BaseHandler.get_response",
        "django.urls.resolvers.URLResolver.resolve",
    ),
    ("django.shortcuts.render", "django.template.loader.render_to_string"),
    ("django.test.client.Client.get", "django.core.handlers.base.BaseHandler.get_response"),
    ("django.contrib.auth.authenticate", "django.contrib.auth.hashers.check_password"),
]
FILES = ["django/db/models/query.py", "django/utils/text.py", "django/urls/base.py"]


@dataclass(frozen=True)
class Case:
    tool: str  # the catalogue's operation
    subject: str  # what is asked, in words
    values: dict[str, Any]


@dataclass
class Team:
    """What the team set-up made: sessions (by agent), the tracked name, the review."""

    sessions: dict[str, int]
    tracked: str
    review: int


def set_up_team(store: Store, root: Path, data_dir: Path, patch: str) -> Team:
    """A team at work on Django, through the catalogue as the surfaces call it: three
    sessions claiming files and leaving trails, an overlay edit, lessons; tokens; the tree
    tracked; a pull request's impact report stored as the webhook path stores it."""

    def run(tool: str, /, **values: Any) -> Any:
        return operation(tool).run(Services(store, data_dir=data_dir), values)

    work = {
        "alice-laptop": (
            "fix bulk_create with update_conflicts",
            FILES[0],
            "django/db/models/sql/compiler.py",
        ),
        "bob-ci": (
            "translate admin strings",
            "django/contrib/admin/options.py",
            "django/utils/translation/trans_real.py",
        ),
        "carol-desk": ("optional groups in reverse()", FILES[2], "django/urls/resolvers.py"),
    }
    sessions = {}
    for agent, (task, *paths) in work.items():
        session = run("session-start", agent=agent, task=task).id
        sessions[agent] = session
        for path in paths:
            run("claim", session=session, repo="django", path=path)
            run("activity", session=session, repo="django", path=path, kind="read")
        run("activity", session=session, repo="django", path=paths[0], kind="edit")
        run(
            "remember",
            session=session,
            text=f"{paths[0]}: read its tests before changing it ({task})",
            about=[paths[0]],
        )
    edited = (
        root / FILES[0]
    ).read_text() + "\n\ndef bulk_create_check(objs):\n    return len(objs)\n"
    run(
        "overlay-edit",
        session=sessions["alice-laptop"],
        repo="django",
        path=FILES[0],
        content=edited,
    )
    for name, scopes in (("ci-bot", "read"), ("alice", "read,claims"), ("ops", "admin")):
        run("token-create", name=name, scopes=scopes)
    run("repo-add", name="django", url=f"file://{root}")
    number = 17001
    store_review(store, "django", number, patch, data_dir, "Make force_str's encoding explicit")
    return Team(sessions, "django", number)


def store_review(
    store: Store, repo: str, number: int, patch: str, data_dir: Path, title: str
) -> None:
    """A pull request's report of this patch's impact, stored as
    `reviews.review_pull_request` stores it when a webhook announces the head."""
    answer = operation("impact").run(
        Services(store, data_dir=data_dir), {"repo": repo, "patch": patch}
    )
    answer = dataclasses.replace(answer, format="markdown")
    store.impact.put_review(
        Review(
            repo=repo,
            number=number,
            head_sha="0" * 40,
            base_ref="main",
            base_sha=answer.base,
            title=title,
            forge="github",
            computed_at=time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
            verdict=answer.verdict,
            report=json.dumps(dataclasses.asdict(answer), ensure_ascii=False),
            markdown=impact_markdown(answer),
        )
    )


def cases(root: Path, team: Team) -> list[Case]:
    """The questions asked, per read tool: typical subjects of an agent's work on Django."""
    listed: list[Case] = []

    def add(tool: str, subject: str, **values: Any) -> None:
        listed.append(Case(tool, subject, values))

    for query in SEARCHES:
        add("search", f"query {query!r}", query=query)
    for text in LOCATE_TEXTS:
        add("locate", f"ticket: {text[:60]}…", text=text)
    for kind, symbol in DJANGO_SYMBOLS:
        add("context", f"{kind} {symbol}", symbol=symbol)
        add("callers", f"{kind} {symbol}", symbol=symbol)
        add("callees", f"{kind} {symbol}", symbol=symbol)
        add("trace", f"{kind} {symbol}, out", symbol=symbol)
        add("explain", f"{kind} {symbol}", symbol=symbol)
        add("source", f"{kind} {symbol}", symbol=symbol)
    alice = team.sessions["alice-laptop"]
    add(
        "context",
        f"in session {alice} (an overlay edit): {FILES[0]}'s QuerySet",
        symbol="django.db.models.query.QuerySet",
        session=alice,
    )
    for symbol in HUBS:
        add("callers", f"hub {symbol}, limit 100", symbol=symbol, limit=100)
        add(
            "callers",
            f"hub {symbol}, limit 100, references too",
            symbol=symbol,
            limit=100,
            include_references=True,
        )
        add("trace", f"hub {symbol}, in", symbol=symbol, direction="in")
    for source, target in PATHS:
        add("path", f"{source} → {target}", source=source, target=target)
    add("dead-code", "the repository")
    add("dead-code", "django/contrib/", path_prefix="django/contrib/")
    add("dead-code", "dead and unknown, tests too", verdicts="dead,unknown", include_tests=True)
    add("services", "the repository")
    add("design-tokens", "every token of the repository", repo="django")
    add("design-tokens", "--primary", name="--primary")
    add("hotspots", "the repository")
    add("overview", "the repository")
    add("overview", "limit 40", limit=40)
    add("stats", "the repository")
    for path in FILES:
        add("history", path, target=path)
        add("co-changes", path, target=path)
        add("owners", path, target=path)
    add("history", "symbol QuerySet.filter", target="django.db.models.query.QuerySet.filter")
    add("owners", "folder django/contrib/admin", target="django/contrib/admin")
    for label, path, old, new in DJANGO_PATCHES:
        add("impact", f"patch: {label}", patch=patch_of(root, path, old, new))
    add("review", f"pull request {team.review}", repo=team.tracked, number=team.review)
    add("reviews", "the tracked repository", repo=team.tracked)
    add("export", "the whole graph")
    add("repos", "the store")
    add("files", "the repository")
    add("files", "under django/db", under="django/db")
    add("schema", "the graph's schema")
    add("claims", "every claim")
    add("claims", "repository django", repo="django")
    add("team", "the team at work")
    for agent, session in team.sessions.items():
        add("check-edit", f"{agent} on {FILES[0]}", session=session, repo="django", path=FILES[0])
    add("overlay", f"session {alice}", session=alice)
    add("recall", "every lesson")
    add("recall", f"about {FILES[0]}", about=[FILES[0]])
    add("recall", "text 'tests'", text="tests")
    add("token-list", "every token")
    add("repo-list", "tracked repositories")
    add("repo-status", "django", name=team.tracked)
    return listed


@dataclass
class Measured:
    tool: str
    mcp: str
    profile: str
    subject: str
    values: dict[str, Any]
    outcome: str = "answer"  # answer, refused (a CartographError: a tool error), crash
    message: str = ""
    whole_characters: int = 0
    whole_tokens: int = 0
    budget_text: str = ""
    budget_tokens: int = 0
    cut: bool = False
    cut_as_text: bool = False
    cursor: bool = False
    left_out: str = ""
    json_whole_tokens: int = 0
    json_budget_tokens: int = 0
    json_cut: bool = False
    # a cut JSON answer, as the MCP client receives it (`as_json`), says it is cut (its CUT_KEY
    # object, or the note beside a list); what the client said when it refused it
    json_cut_said: bool = False
    json_cut_mcp_error: str = ""
    computed_ms: float = 0.0
    budget_ms: float = 0.0
    budget_o200k: int | None = None
    budget_claude: int | None = None
    paging: dict[str, Any] | None = None


def shown_values(values: dict[str, Any]) -> dict[str, Any]:
    """The values as the report shows them (a patch by its first lines)."""
    shown = dict(values)
    if "patch" in shown:
        shown["patch"] = "\n".join(str(shown["patch"]).splitlines()[:4]) + "\n…"
    return shown


def ask(
    op: Operation, store: Store, data_dir: Path, values: dict[str, Any], form: str
) -> tuple[Fitted, float]:
    started = time.perf_counter()
    fitted = run_fitted(op, Services(store, data_dir=data_dir), values, "mcp", form)
    return fitted, (time.perf_counter() - started) * 1000


def measure_case(store: Store, data_dir: Path, case: Case) -> Measured:
    op = operation(case.tool)
    row = Measured(case.tool, op.mcp or "", op.mcp_profile, case.subject, shown_values(case.values))
    whole_values = {**case.values, "max_tokens": None}
    budget_values = {**case.values, "max_tokens": AGENT_MAX_TOKENS}
    try:
        whole, row.computed_ms = ask(op, store, data_dir, whole_values, "text")
        budget, row.budget_ms = ask(op, store, data_dir, budget_values, "text")
        whole_json, _ = ask(op, store, data_dir, whole_values, "json")
        budget_json, _ = ask(op, store, data_dir, budget_values, "json")
    except CartographError as exc:
        row.outcome, row.message = "refused", f"{type(exc).__name__}: {exc}"
        return row
    except Exception as exc:  # a defect: reported with the arguments that reproduce it
        row.outcome, row.message = "crash", f"{type(exc).__name__}: {exc}"
        return row
    if op.mcp_profile != "agent":  # MCP answers these with structured content too
        try:
            to_data(budget.answer)
        except Exception as exc:
            row.outcome = "crash"
            said = f"{type(exc).__name__}: {exc}"
            row.message = f"the structured content of the answer within the budget: {said}"
            return row
    row.whole_characters = len(whole.text)
    row.whole_tokens = count_tokens(whole.text)
    row.budget_text = budget.text
    row.budget_tokens = estimate_tokens(budget.text)
    row.cut, row.cut_as_text, row.cursor = budget.cut, budget.cut_as_text, bool(budget.cursor)
    row.left_out = "; ".join(f"{i.field}: {i.shown} shown, {i.left} more" for i in budget.left_out)
    row.json_whole_tokens = count_tokens(whole_json.text)
    row.json_budget_tokens = estimate_tokens(budget_json.text)
    row.json_cut = budget_json.cut
    if budget.cut:
        row.paging = follow_cursor(op, store, data_dir, budget_values, whole, budget)
    return row


def follow_cursor(
    op: Operation,
    store: Store,
    data_dir: Path,
    values: dict[str, Any],
    whole: Fitted,
    first: Fitted,
) -> dict[str, Any]:
    """Follow a cut answer's cursor until none is given (at most MAX_PAGES pages and
    FOLLOW_SECONDS): pages, whether each fits the budget, and whether the pages' lists hold
    every item of the whole answer's lists once, in order (when stopped early: whether what
    they hold so far is the start of each list)."""
    from cartograph.budget import _lists  # the lists a cut shortens (what a cursor pages)

    if not first.cursor:
        why = "cut as text" if first.cut_as_text else "what it left out has no cursor"
        return {"followed": False, "why": f"{why}: no cursor (ask a narrower question)"}
    wanted = {place: list(map(_key, items)) for place, items in _lists(whole.answer).items()}
    seen: dict[str, list[str]] = {place: [] for place in wanted}
    unshown: dict[str, list[str]] = {}  # items of a page's answer its text does not name
    page, pages, over, as_text, seconds = first, 0, 0, 0, 0.0
    while True:
        pages += 1
        over += estimate_tokens(page.text) > AGENT_MAX_TOKENS
        as_text += page.cut_as_text  # its text is cut at a line: not all it lists is shown
        for place, items in _lists(page.answer).items():
            seen.setdefault(place, []).extend(map(_key, items))
            for item in items:
                name = label(item)
                if name is not None and name not in page.text:
                    unshown.setdefault(place, []).append(name[:100])
        if not page.cursor or pages >= MAX_PAGES or seconds > FOLLOW_SECONDS:
            break
        page, took = ask(op, store, data_dir, {**values, "cursor": page.cursor}, "text")
        seconds += took / 1000
    ended = not page.cursor
    differing = {}
    for place, items in wanted.items():
        paged = seen.get(place, [])
        expected = items if ended else items[: len(paged)]
        if paged != expected:
            differing[place] = f"{len(paged)} paged of {len(items)}"
    return {
        "followed": True,
        "pages": pages,
        "ended": ended,
        "seconds_per_page": round(seconds / max(pages - 1, 1), 2),
        "pages_over_budget": over,
        "pages_cut_as_text": as_text,
        "items_not_in_text": {place: len(names) for place, names in unshown.items()},
        "items_not_in_text_first": {place: names[:3] for place, names in unshown.items()},
        "items": sum(len(items) for items in wanted.values()),
        "paged_items": sum(len(items) for items in seen.values()),
        # ended: every item once, in order; stopped early: the pages so far are each list's start
        # (in the pages' answers; a page cut as text does not show all of its answer)
        "consistent": not differing,
        "lists_differing": differing,
    }


LABEL_KEYS = ("node", "qualname", "command", "name", "path", "id", "text")


def label(item: Any) -> str | None:
    """What a page's text shows of a list item, to find it there: the item itself when it is
    text, else its first name-like field (LABEL_KEYS, the shallowest first); None when it has
    none."""
    data = to_data(item)
    if isinstance(data, str):
        return data.strip()
    level = [data] if isinstance(data, dict) else []
    while level:
        for key in LABEL_KEYS:
            for each in level:
                if isinstance(each.get(key), str) and each[key].strip():
                    return each[key].strip()
        level = [v for each in level for v in each.values() if isinstance(v, dict)]
    return None


def _key(item: Any) -> str:
    return json.dumps(to_data(item), sort_keys=True, default=str)


def read_tools() -> list[Operation]:
    return [op for op in CATALOGUE if op.budgeted and op.mcp]


def measure_answers(
    tree: Path, work: Path, tokenizers: Tokenizers, progress: Callable[[str], None]
) -> dict[str, Any]:
    root = work / "django"
    data_dir = work / "data"
    commit_tree(tree, root)
    store = open_store(f"sqlite:///{work / 'django.db'}")
    started = time.perf_counter()
    indexed = index_repository(store, root, "django")
    index_seconds = time.perf_counter() - started
    progress(f"django indexed in {index_seconds:.0f} s")
    _, path, old, new = DJANGO_PATCHES[1]
    team = set_up_team(store, root, data_dir, patch_of(root, path, old, new))
    asked = cases(root, team)
    uncovered = {op.name for op in read_tools()} - {case.tool for case in asked}
    if uncovered:
        raise RuntimeError(f"read tools without a case: {sorted(uncovered)}")
    rows = []
    for n, case in enumerate(asked, 1):
        row = measure_case(store, data_dir, case)
        if row.json_cut:  # what the agent's client gets of a cut JSON answer
            row.json_cut_said, row.json_cut_mcp_error = mcp_json_cut_said(
                store.url, row.mcp, case.values, data_dir
            )
        rows.append(row)
        progress(
            f"[{n}/{len(asked)}] {row.mcp} {case.subject}: {row.outcome} "
            f"{row.whole_tokens} whole, {row.budget_tokens} cut={row.cut} "
            f"{row.computed_ms:.0f} ms"
        )
    answered = [row for row in rows if row.outcome == "answer"]
    counted = tokenizers.count([row.budget_text for row in answered])
    for row, (o200k, claude) in zip(answered, counted, strict=True):
        row.budget_o200k, row.budget_claude = o200k, claude
    store.close()
    return {
        "corpus": f"Django 5.1.4 sdist ({tree}), one git commit, SQLite store",
        "index": {
            "seconds": round(index_seconds, 1),
            "files": indexed.files,
            "symbols": indexed.symbols_written,
            "edges": indexed.edges_written,
        },
        "max_tokens": AGENT_MAX_TOKENS,
        "per_tool": per_tool(rows),
        "checks": checks(rows, tokenizers),
        "calls": [{k: v for k, v in asdict(row).items() if k != "budget_text"} for row in rows],
    }


def mcp_json_cut_said(
    store_url: str, tool: str, values: dict[str, Any], data_dir: Path
) -> tuple[bool, str]:
    """Call the tool with `as_json` through the MCP SDK's client (in process, every profile
    listed, the default budget): whether what the client receives says the answer is cut
    (the CUT_KEY object in the JSON or the structured content, or a note beside it), and the
    client's or the server's error ("" when it answered)."""
    from mcp import Client

    async def call() -> Any:
        server = build_server(store_url, profiles=PROFILES, data_dir=data_dir)
        async with Client(server) as client:
            return await client.call_tool(tool, {**values, "as_json": True})

    try:
        result = asyncio.run(call())
    except Exception as exc:  # the client refused the answer (its output schema)
        return False, f"{type(exc).__name__}: {exc}"[:400]
    texts = [getattr(block, "text", "") for block in result.content]
    if result.is_error:
        return False, " ".join(texts)[:400]
    structured = result.structured_content or {}
    said = (
        CUT_KEY in structured
        or any(text.startswith("[cut to") for text in texts)
        or any(f'"{CUT_KEY}":' in text for text in texts)
    )
    return said, ""


def per_tool(rows: list[Measured]) -> list[dict[str, Any]]:
    summary = []
    for op in read_tools():
        mine = [row for row in rows if row.tool == op.name]
        answered = [row for row in mine if row.outcome == "answer"]

        def stat(values: list[float], how: Callable[[list[float]], float]) -> float | None:
            return round(how(values), 1) if values else None

        whole = [float(row.whole_tokens) for row in answered]
        budget = [float(row.budget_tokens) for row in answered]
        as_json = [float(row.json_whole_tokens) for row in answered]
        summary.append(
            {
                "tool": op.mcp,
                "operation": op.name,
                "profile": op.mcp_profile,
                "calls": len(mine),
                "answered": len(answered),
                "refused": sum(row.outcome == "refused" for row in mine),
                "crashed": sum(row.outcome == "crash" for row in mine),
                "whole_median": stat(whole, statistics.median),
                "whole_max": stat(whole, max),
                "budget_median": stat(budget, statistics.median),
                "budget_max": stat(budget, max),
                "cut": sum(row.cut for row in answered),
                "json_whole_median": stat(as_json, statistics.median),
                "json_whole_max": stat(as_json, max),
                "json_budget_max": stat([float(r.json_budget_tokens) for r in answered], max),
                "computed_ms_median": stat([r.computed_ms for r in answered], statistics.median),
                "computed_ms_max": stat([r.computed_ms for r in answered], max),
                "budget_ms_median": stat([r.budget_ms for r in answered], statistics.median),
            }
        )
    return summary


def checks(rows: list[Measured], tokenizers: Tokenizers) -> dict[str, Any]:
    answered = [row for row in rows if row.outcome == "answer"]
    over = [row for row in answered if row.budget_tokens > AGENT_MAX_TOKENS]
    json_over = [row for row in answered if row.json_budget_tokens > AGENT_MAX_TOKENS]
    paged = [row for row in answered if row.paging is not None]
    real: dict[str, Any] = {"measured": tokenizers.available}
    if tokenizers.available:
        for name in ("o200k", "claude"):
            counts = [(getattr(row, f"budget_{name}"), row) for row in answered]
            counts = [(count, row) for count, row in counts if count is not None]
            ratios = [row.budget_tokens / count for count, row in counts if count >= 100]
            real[name] = {
                "max": max(count for count, _ in counts),
                "over_budget": [
                    f"{row.mcp} ({row.subject}): {count}"
                    for count, row in counts
                    if count > AGENT_MAX_TOKENS
                ],
                "estimate_over_real_min": round(min(ratios), 2) if ratios else None,
                "estimate_over_real_median": round(statistics.median(ratios), 2)
                if ratios
                else None,
                "estimate_below_real": sum(row.budget_tokens < count for count, row in counts),
            }
    return {
        "answers": len(answered),
        "refused": [
            {"tool": row.mcp, "subject": row.subject, "values": row.values, "message": row.message}
            for row in rows
            if row.outcome == "refused"
        ],
        "crashes": [
            {"tool": row.mcp, "subject": row.subject, "values": row.values, "message": row.message}
            for row in rows
            if row.outcome == "crash"
        ],
        "text_over_budget": [f"{row.mcp} ({row.subject}): {row.budget_tokens}" for row in over],
        "json_cut_unsaid": [
            f"{row.mcp} ({row.subject}): {row.json_budget_tokens} tokens, "
            f"{row.json_whole_tokens:,} whole"
            + (f"; the MCP call: {row.json_cut_mcp_error}" if row.json_cut_mcp_error else "")
            for row in answered
            if row.json_cut and not row.json_cut_said
        ],
        "json_over_budget": [
            f"{row.mcp} ({row.subject}): {row.json_budget_tokens}" for row in json_over
        ],
        "cut": len([row for row in answered if row.cut]),
        "cut_as_text": [f"{row.mcp} ({row.subject})" for row in answered if row.cut_as_text],
        # cut answers that use little of the budget: the cut left out more than it had to
        "thin_cuts": [
            f"{row.mcp} ({row.subject}): {row.budget_tokens} tokens of {row.whole_tokens:,}; "
            f"left out {row.left_out or 'text'}"
            for row in answered
            if row.cut and row.budget_tokens < THIN_CUT * AGENT_MAX_TOKENS
        ],
        "paged": [
            {
                "tool": row.mcp,
                "subject": row.subject,
                "whole_tokens": row.whole_tokens,
                **(row.paging or {}),
            }
            for row in paged
        ],
        "real_tokenizers": real,
    }


# ------------------------------------------------------------------ 3. the MCP Inspector

# the order tools are called in (the rest in between): what makes a session, a token or a
# tracked repository first; what ends or removes them last
FIRST = ["start_session", "create_token", "track_repo"]
LAST = ["release_file", "overlay_drop", "end_session", "revoke_token", "untrack_repo"]
BUDGETED_TOOLS = {op.mcp for op in CATALOGUE if op.budgeted and op.mcp}
OTHER_PROFILE_TOOL = {
    "agent": "get_stats",
    "explore": "get_context",
    "team": "get_stats",
    "admin": "get_context",
}


@dataclass
class Click:
    """The small repository the Inspector's calls are about, and what they need."""

    root: Path
    store_url: str
    data_dir: Path
    coverage_file: Path
    patch: str
    sessions: dict[str, int] = field(default_factory=dict)  # profile -> session id


def prepare_click(work: Path) -> Click:
    root = work / "click"
    commit_tree(fetch("click", "8.1.7"), root)
    store_url = f"sqlite:///{work / 'click.db'}"
    store = open_store(store_url)
    index_repository(store, root, "click")
    coverage_file = work / "click.coverage"
    write_coverage(root, coverage_file)
    patch = patch_of(
        root,
        "src/click/utils.py",
        "    if message is not None and not isinstance(message, (str, bytes, bytearray)):\n",
        "    if message is not None and not isinstance(message, (str, bytes)):\n",
    )
    # pull_request_report 1 has a report to give
    store_review(store, "click", 1, patch, work / "data", "echo: bytearray is not text")
    store.close()
    return Click(root, store_url, work / "data", coverage_file, patch)


def write_coverage(root: Path, data_file: Path) -> None:
    """A real coverage.py data file: one test of the suite (pytest-cov's context) running
    the body of `click.utils.echo`."""
    from coverage import CoverageData

    lines = (root / "src/click/utils.py").read_text().splitlines()
    start = next(n for n, line in enumerate(lines, 1) if line.startswith("def echo("))
    end = next(n for n, line in enumerate(lines, 1) if n > start and line.startswith("def "))
    tests = (root / "tests/test_utils.py").read_text()
    test = re.search(r"^def (test_echo\w*)\(", tests, re.M)
    assert test is not None, "click's tests/test_utils.py has no test_echo"
    data = CoverageData(basename=str(data_file))
    data.set_context(f"tests/test_utils.py::{test.group(1)}|run")
    data.add_lines({str(root / "src/click/utils.py"): list(range(start + 1, end - 1))})
    data.write()


# the file each profile's session claims and edits (the agent's session holds utils.py while
# the team profile runs)
SESSION_FILE = {"agent": "src/click/utils.py", "team": "src/click/termui.py"}
CUT_TO = 200  # the second pass: each structured read cut to this (MIN_MAX_TOKENS)


def inspector_arguments(
    tool: str, click: Click, session: int | None, path: str = SESSION_FILE["agent"]
) -> dict[str, str]:
    """Minimal valid arguments of each tool on click: its required parameters, and the one
    an answer needs where none is required (impact's patch, overlay_edit's content)."""
    symbol = "click.utils.echo"
    edit = {"session": str(session), "repo": "click", "path": path}
    arguments: dict[str, dict[str, str]] = {
        "search_symbols": {"query": "echo"},
        "locate": {"text": "echo writes bytes to the wrong stream when err is true"},
        "get_context": {"symbol": symbol},
        "find_callers": {"symbol": symbol},
        "find_callees": {"symbol": symbol},
        "trace_calls": {"symbol": symbol},
        "explain": {"symbol": symbol},
        "get_source": {"symbol": symbol},
        "find_path": {"source": "click.termui.secho", "target": symbol},
        "history": {"target": path},
        "co_changes": {"target": path},
        "owners": {"target": path},
        "impact": {"patch": click.patch},
        "pull_request_report": {"repo": "click", "number": "1"},
        "pull_request_reports": {"repo": "click"},
        "start_session": {"agent": "inspector", "task": "call every tool"},
        "heartbeat": {"session": str(session)},
        "end_session": {"session": str(session)},
        "claim_file": edit,
        "release_file": edit,
        "check_edit": edit,
        "record_activity": {**edit, "kind": "read"},
        "overlay_edit": {**edit, "content": (click.root / path).read_text() + "\n# edited\n"},
        "overlay_files": {"session": str(session)},
        "overlay_drop": {"session": str(session)},
        "remember": {"session": str(session), "text": "echo: test with err=True too"},
        "create_token": {"name": "inspector-bot"},
        "revoke_token": {"name": "inspector-bot"},
        "track_repo": {"name": "click-mirror", "url": f"file://{click.root}"},
        "tracked_repo_status": {"name": "click-mirror"},
        "untrack_repo": {"name": "click-mirror"},
        "set_repo_forge": {"name": "click-mirror", "forge": "none"},
        "sync_repo": {"name": "click-mirror"},
        "import_coverage": {"data_file": str(click.coverage_file)},
    }
    return arguments.get(tool, {})


@dataclass
class InspectorCall:
    tool: str
    arguments: dict[str, str]
    outcome: str  # answer, tool error, protocol failure
    message: str
    seconds: float


class Inspector:
    def __init__(self, click: Click) -> None:
        self.click = click
        self.env = {**os.environ, "CARTOGRAPH_DATA": str(click.data_dir)}
        for name in (
            "CARTOGRAPH_SERVER",
            "CARTOGRAPH_STORE",
            "CARTOGRAPH_BROKER",
            "CARTOGRAPH_MCP_PROFILES",
        ):
            self.env.pop(name, None)

    def run(self, profile: str, *method: str) -> tuple[int, str, str, float]:
        server = [
            sys.executable,
            "-m",
            "cartograph.cli",
            "--store",
            self.click.store_url,
            "mcp",
            "--profile",
            profile,
        ]
        started = time.perf_counter()
        try:
            done = subprocess.run(
                ["npx", "-y", INSPECTOR, "--cli", *server, *method],
                capture_output=True,
                text=True,
                cwd=self.click.root,  # the server's folder: a read without `repo` picks click
                env=self.env,
                timeout=INSPECTOR_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return -1, "", f"no answer in {INSPECTOR_TIMEOUT} s", time.perf_counter() - started
        return done.returncode, done.stdout, done.stderr, time.perf_counter() - started

    def list_tools(self, profile: str) -> tuple[list[str], str]:
        code, out, err, _ = self.run(profile, "--method", "tools/list")
        if code != 0:
            return [], last_lines(err)
        try:
            return [tool["name"] for tool in json.loads(out)["tools"]], ""
        except (ValueError, KeyError) as exc:
            return [], f"unreadable listing: {exc}"

    def call(self, profile: str, tool: str, arguments: dict[str, str]) -> InspectorCall:
        pairs = [f"{key}={value}" for key, value in arguments.items()]
        method = ["--method", "tools/call", "--tool-name", tool]
        if pairs:
            method += ["--tool-arg", *pairs]
        code, out, err, seconds = self.run(profile, *method)
        shown = shown_values(arguments)
        if "content" in shown:
            shown["content"] = f"<{len(arguments['content'])} characters>"
        if code != 0:
            return InspectorCall(tool, shown, "protocol failure", last_lines(err or out), seconds)
        try:
            result = json.loads(out)
        except ValueError:
            return InspectorCall(tool, shown, "protocol failure", f"not JSON: {out[:200]}", seconds)
        text = " ".join(b.get("text", "") for b in result.get("content", []) if isinstance(b, dict))
        if result.get("isError"):
            return InspectorCall(tool, shown, "tool error", text[:300], seconds)
        return InspectorCall(tool, shown, "answer", text[:160], seconds)


def last_lines(text: str, count: int = 3) -> str:
    return " | ".join(line for line in text.strip().splitlines()[-count:])[:400]


def inspector_version() -> str:
    done = subprocess.run(
        ["npm", "view", f"{INSPECTOR}", "version", "dist-tags", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    latest = ""
    with contextlib.suppress(ValueError, KeyError, TypeError):
        latest = json.loads(done.stdout)["version"]
    installed = sorted(
        (Path.home() / ".npm" / "_npx").glob(
            "*/node_modules/@modelcontextprotocol/inspector/package.json"
        ),
        key=lambda p: p.stat().st_mtime,
    )
    used = json.loads(installed[-1].read_text())["version"] if installed else "unknown"
    return f"{used} (npx's pick for node {node_version()}; the registry's latest: {latest or '?'})"


def node_version() -> str:
    done = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def measure_inspector(
    work: Path, sdk_names: dict[str, list[str]], progress: Callable[[str], None]
) -> dict[str, Any]:
    if shutil.which("npx") is None:
        return {"skipped": "npx is not installed"}
    click = prepare_click(work)
    inspector = Inspector(click)
    profiles: dict[str, Any] = {}
    for profile in PROFILE_SETS:
        names, problem = inspector.list_tools(profile)
        row: dict[str, Any] = {
            "listed": len(names),
            "names": names,
            "same_as_sdk": sorted(names) == sorted(sdk_names.get(profile, [])),
            "list_problem": problem,
        }
        profiles[profile] = row
        if profile == "all":
            continue  # every tool is called in its own profile
        session = open_session(click, profile)
        path = SESSION_FILE.get(profile, SESSION_FILE["agent"])
        first = [n for n in FIRST if n in names]
        last = [n for n in LAST if n in names]
        steps = [(tool, {}) for tool in first + [n for n in names if n not in first + last]]
        # then each read with structured content (outside the agent profile) cut: its answer
        # carries the CUT_KEY object its output schema describes
        steps += [
            (tool, {"max_tokens": str(CUT_TO)})
            for tool in names
            if profile != "agent" and tool in BUDGETED_TOOLS
        ]
        steps += [(tool, {}) for tool in last]
        calls, cut_calls = [], []
        for tool, extra in steps:
            arguments = {**inspector_arguments(tool, click, session, path), **extra}
            called = inspector.call(profile, tool, arguments)
            if tool == "start_session" and called.outcome == "answer":
                found = re.search(r"session (\d+)", called.message)
                session = int(found.group(1)) if found else session
            (cut_calls if extra else calls).append(called)
            progress(
                f"inspector {profile} {tool} {extra}: {called.outcome} {called.message[:80]!r}"
            )
        other = OTHER_PROFILE_TOOL[profile]
        refused = inspector.call(
            profile, other, {"symbol": "click.utils.echo"} if other == "get_context" else {}
        )
        row["calls"] = [asdict(call) for call in calls]
        row["cut_calls"] = [asdict(call) for call in cut_calls]
        row["other_profile_call"] = asdict(refused)
        for outcome in ("answer", "tool error", "protocol failure"):
            row[outcome] = sum(call.outcome == outcome for call in calls)
            row[f"cut {outcome}"] = sum(call.outcome == outcome for call in cut_calls)
    return {
        "inspector": inspector_version(),
        "repository": "click 8.1.7 (sdist, one git commit), SQLite store",
        "profiles": profiles,
    }


def open_session(click: Click, profile: str) -> int | None:
    """A live session for the profile's team tools: started here (through the catalogue) for
    the team profile, which has no start_session (the agent profile starts its own), with a
    claim on the file its release_file releases."""
    if profile != "team":
        return None
    store = open_store(click.store_url)
    session = (
        operation("session-start")
        .run(Services(store), {"agent": "team-check", "task": "team tools"})
        .id
    )
    operation("claim").run(
        Services(store), {"session": session, "repo": "click", "path": SESSION_FILE["team"]}
    )
    store.close()
    return session


# ------------------------------------------------------------------------------ the report


def number(value: float | int | None, digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}"


def measured(value: int | None) -> str:
    return "not measured" if value is None else f"{value:,}"


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "—"


def to_markdown(report: dict[str, Any]) -> str:
    lines = [
        f"# What an agent pays for Cartograph's MCP surface — {report['date'][:10]}",
        "",
        f"Machine: {report['machine']}. Commit: {report['commit']}. Run: "
        f"{report['seconds']:.0f} s. Tokenizers: {report['tokenizers']}.",
        "",
        tree_text(report["working_tree"]),
        "",
        "While it ran (sampled every 10 s): load average (1 min) mean "
        f"{report['machine_load']['load_average_1min']['mean']}, max "
        f"{report['machine_load']['load_average_1min']['max']}. Other processes that used "
        "CPU meanwhile (another engineer's tests run on the same 2 cores):",
        "",
    ]
    others = report["machine_load"]["other_processes_cpu_s"]
    lines += [f"- `{o['command']}`: {o['cpu_s']} CPU s" for o in others] or ["- none"]
    lines += ["", "## What to look at", ""]
    lines += [f"- {finding}" for finding in findings(report)] or ["- nothing"]
    lines += tool_list_section(report["tool_lists"])
    lines += answers_section(report["answers"])
    lines += inspector_section(report["inspector"])
    return "\n".join(lines) + "\n"


def tree_text(tree: dict[str, Any]) -> str:
    start, end = tree["at_start"], tree["at_end"]
    if Path(start["library"]) != Path(__file__).resolve().parent.parent / "platform":
        return (
            f"The library was imported from {start['library']} (PYTHONPATH), not from this "
            "checkout's platform/: its uncommitted changes do not apply."
        )
    if not start["uncommitted"] and not end["uncommitted"]:
        return "The library (platform/, api/) had no uncommitted changes at the start or the end."
    said = "The library (platform/, api/) had uncommitted changes (another engineer's work)"
    said += f" at the start: {', '.join(start['uncommitted']) or 'none'}"
    if start == end:
        return said + " — the same at the end (diff unchanged)."
    after = ", ".join(end["uncommitted"]) or "none"
    return said + f"; at the end: {after} (the diff changed while it ran)."


def findings(report: dict[str, Any]) -> list[str]:
    """What the checks found wrong, said first."""
    found = []
    checks = report["answers"]["checks"]
    budget = report["answers"]["max_tokens"]
    for key, what in (
        ("crashes", "tool calls that crashed (not a CartographError)"),
        ("text_over_budget", f"text answers over the default budget of {budget:,}"),
        ("json_over_budget", f"JSON answers (`as_json`) over the default budget of {budget:,}"),
        (
            "json_cut_unsaid",
            f"JSON answers (`as_json`, through the MCP client) cut with nothing saying so "
            f"(no `{CUT_KEY}`, no note, no cursor)",
        ),
        ("cut_as_text", "answers cut as text (no cursor: the rest cannot be asked for)"),
        ("thin_cuts", f"cut answers using under {THIN_CUT:.0%} of the budget"),
    ):
        items = checks[key]
        if items:
            shown = [
                i
                if isinstance(i, str)
                else f"{i['tool']} {json.dumps(i['values'])}: {i['message']}"
                for i in items
            ]
            found.append(f"{len(items)} {what}: " + "; ".join(s[:300] for s in shown))
    for paged in checks["paged"]:
        if paged.get("followed") and (
            not paged["consistent"] or paged["pages_cut_as_text"] or paged["items_not_in_text"]
        ):
            found.append(
                f"following the cursor of {paged['tool']} ({paged['subject']}) through "
                f"{paged['pages']} pages: {paged['pages_cut_as_text']} cut as text; lists "
                f"differing: {paged['lists_differing'] or 'none'}; items of the pages' answers "
                f"their text does not name: {unshown_text(paged)}"
            )
    real = checks["real_tokenizers"]
    for name in ("o200k", "claude") if real["measured"] else ():
        if real[name]["over_budget"]:
            found.append(
                f"{len(real[name]['over_budget'])} answers within the budget are over {budget:,} "
                f"{name} tokens: " + "; ".join(real[name]["over_budget"])
            )
    slow = [
        f"{row['tool']} {number(row['computed_ms_median'])} ms computed"
        for row in report["answers"]["per_tool"]
        if (row["computed_ms_median"] or 0) > SLOW_MS
    ]
    slow += [
        f"{row['tool']} {number(row['budget_ms_median'])} ms to cut a cached answer"
        for row in report["answers"]["per_tool"]
        if (row["budget_ms_median"] or 0) > SLOW_MS
    ]
    if slow:
        found.append(f"calls slower than {SLOW_MS / 1000:g} s (median): " + "; ".join(slow))
    for name, row in report["inspector"].get("profiles", {}).items():
        for call in row.get("calls", []) + row.get("cut_calls", []):
            if call["outcome"] == "protocol failure" or (
                call["outcome"] == "tool error" and not call["message"].partition(": ")[2]
            ):
                arguments = ", ".join(f"{k}={v}" for k, v in call["arguments"].items())
                found.append(
                    f"Inspector, {name} profile: `{call['tool']}` ({arguments[:100]}): "
                    f"{call['outcome']}: {call['message']}"
                )
    return found


def tool_list_section(lists: dict[str, Any]) -> list[str]:
    before = lists["before"]
    profiles = lists["profiles"]
    lines = [
        "",
        "## 1. The tool list per profile",
        "",
        "As the MCP SDK's client receives it (`Client.list_tools()`, each tool "
        '`model_dump(by_alias=True, exclude_none=True, mode="json")`, the list `json.dumps`ed). '
        "estimate: `cartograph.budget.estimate_tokens`; o200k: gpt-tokenizer's o200k_base; "
        "Claude: @anthropic-ai/tokenizer (Claude's legacy published tokenizer; today's Claude "
        "models tokenize differently and publish no tokenizer).",
        "",
        "| profile | tools | characters | estimate | o200k | Claude (legacy) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in profiles.items():
        default = " (default)" if name == "agent" else ""
        lines.append(
            f"| {name}{default} | {row['tools']} | {row['characters']:,} | {row['estimate']:,} | "
            f"{measured(row['o200k'])} | {measured(row['claude'])} |"
        )
    instructions = lists["instructions"]
    lines += [
        f"| *server instructions (every profile)* | | {instructions['characters']:,} | "
        f"{instructions['estimate']:,} | {measured(instructions['o200k'])} | "
        f"{measured(instructions['claude'])} |",
        f"| *before, at {before['commit']} (everything listed by default)* | {before['tools']} | "
        f"{before['characters']:,} | | | |",
        "",
        f"The default list is {profiles['agent']['characters'] / before['characters']:.1%} of "
        f"the characters an agent loaded before ({profiles['agent']['characters']:,} of "
        f"{before['characters']:,}); all profiles together are "
        f"{profiles['all']['characters'] / before['characters']:.1%}.",
        "",
        "What the characters of each list are (the rest: names, JSON punctuation):",
        "",
        "| profile | descriptions | input schemas | output schemas | annotations |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, row in profiles.items():
        total = row["characters"]
        cells = [
            f"{part['characters']:,} ({share(part['characters'], total)})"
            for part in row["parts"].values()
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for name, title, count in (
        ("agent", "The default profile's tools, largest first", None),
        ("all", "The largest tools of all profiles", 10),
    ):
        lines += [
            "",
            f"{title}:",
            "",
            "| tool | characters | estimate | o200k | Claude | input schema | description | "
            "output schema | annotations |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for tool in profiles[name]["per_tool"][:count]:
            size = tool["characters"]
            lines.append(
                f"| {tool['name']} | {size:,} | {tool['estimate']:,} | {measured(tool['o200k'])} | "
                f"{measured(tool['claude'])} | {share(tool['input schemas'], size)} | "
                f"{share(tool['descriptions'], size)} | {share(tool['output schemas'], size)} | "
                f"{share(tool['annotations'], size)} |"
            )
    return lines


def answers_section(answers: dict[str, Any]) -> list[str]:
    index = answers["index"]
    budget = answers["max_tokens"]
    checks = answers["checks"]
    lines = [
        "",
        "## 2. Answer sizes on Django 5.1.4",
        "",
        f"{answers['corpus']}: {index['files']:,} files, {index['symbols']:,} symbols, "
        f"{index['edges']:,} edges, indexed in {index['seconds']} s. Each read tool of every "
        "profile asked on typical subjects (the JSON has every call and its arguments) through "
        '`answering.run_fitted(op, Services(store), values, "mcp", form)`, as the MCP server '
        f"answers. Tokens by `estimate_tokens`. *Whole*: `max_tokens` None; *budget*: "
        f"`max_tokens` {budget:,} (AGENT_MAX_TOKENS, MCP's default). *computed*: the first, "
        "whole call (the process's answer cache cold for the question); *budgeted*: the next "
        "call, within the budget (the answer cached: the time is the cut). history, co_changes "
        "and owners answer on a history of one commit.",
        "",
        "| tool | profile | calls | answered | whole median / max | budget median / max | "
        "cut | JSON whole median / max | JSON budget max | computed ms median / max | "
        "budgeted ms median |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in answers["per_tool"]:
        answered = f"{row['answered']}" + (f" ({row['refused']} refused)" if row["refused"] else "")
        answered += f" ({row['crashed']} crashed)" if row["crashed"] else ""
        lines.append(
            f"| {row['tool']} | {row['profile']} | {row['calls']} | {answered} | "
            f"{number(row['whole_median'])} / {number(row['whole_max'])} | "
            f"{number(row['budget_median'])} / {number(row['budget_max'])} | {row['cut']} | "
            f"{number(row['json_whole_median'])} / {number(row['json_whole_max'])} | "
            f"{number(row['json_budget_max'])} | "
            f"{number(row['computed_ms_median'], 1)} / {number(row['computed_ms_max'], 1)} | "
            f"{number(row['budget_ms_median'], 1)} |"
        )
    lines += [
        "",
        "### Checks",
        "",
        f"- Answers: {checks['answers']}; cut within the budget: {checks['cut']}.",
        f"- Text answers within the budget over {budget:,} estimated tokens: "
        f"{len(checks['text_over_budget'])}" + list_after(checks["text_over_budget"]),
        f"- JSON answers (`as_json`) within the budget over {budget:,}: "
        f"{len(checks['json_over_budget'])}" + list_after(checks["json_over_budget"]),
        f"- JSON answers cut (`as_json`, as the MCP client receives them) with nothing saying so "
        f"(no `{CUT_KEY}` object, no note, no cursor): "
        f"{len(checks['json_cut_unsaid'])}" + list_after(checks["json_cut_unsaid"]),
        f"- Cut as text (nothing left to cut, no cursor): {len(checks['cut_as_text'])}"
        + list_after(checks["cut_as_text"]),
        f"- Cut answers using less than {THIN_CUT:.0%} of the budget: {len(checks['thin_cuts'])}"
        + list_after(checks["thin_cuts"]),
    ]
    real = checks["real_tokenizers"]
    if real["measured"]:
        for name, label in (("o200k", "o200k_base"), ("claude", "Claude (legacy)")):
            each = real[name]
            lines.append(
                f"- {label} tokens of the answers within the budget: max {each['max']:,}; over "
                f"{budget:,}: {len(each['over_budget'])}"
                + list_after(each["over_budget"])
                + f"; estimate / real: min {each['estimate_over_real_min']}, median "
                f"{each['estimate_over_real_median']} (answers of 100 tokens or more); answers "
                f"whose estimate is below the real count: {each['estimate_below_real']}"
            )
    else:
        lines.append("- Real tokenizer counts of the answers: not measured.")
    lines += [
        f"- Refused (a tool error an agent would read): {len(checks['refused'])}"
        + "".join(
            f"\n  - {r['tool']} {json.dumps(r['values'])}: {r['message']}"
            for r in checks["refused"]
        ),
        f"- Crashes (not a CartographError: a defect): {len(checks['crashes'])}"
        + "".join(
            f"\n  - {r['tool']} {json.dumps(r['values'])}: {r['message']}"
            for r in checks["crashes"]
        ),
        "",
        "### Following the cursor of every cut answer",
        "",
        f"Until no cursor is given (at most {MAX_PAGES} pages, or until the pages took "
        f"{FOLLOW_SECONDS:.0f} s); the pages' lists against the whole answer's: every item once, "
        "in order (stopped early: the items paged so far are the start of each list).",
        "",
        "| tool | subject | whole tokens | pages | s per page | pages over budget | pages cut "
        "as text | items paged / whole | every item once, in order | items not named in their "
        "page's text |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for paged in checks["paged"]:
        if not paged["followed"]:
            lines.append(
                f"| {paged['tool']} | {paged['subject']} | {paged['whole_tokens']:,} | "
                f"not followed: {paged['why']} | | | | | | |"
            )
            continue
        covers = "yes" if paged["consistent"] else f"**no**: {paged['lists_differing']}"
        if paged["pages_cut_as_text"]:
            covers += " in the pages' answers, **not in their text** (pages cut at a line)"
        if not paged["ended"]:
            covers = f"stopped early; so far {covers}"
        lines.append(
            f"| {paged['tool']} | {paged['subject']} | {paged['whole_tokens']:,} | "
            f"{paged['pages']} | {paged['seconds_per_page']} | {paged['pages_over_budget']} | "
            f"{paged['pages_cut_as_text']} | "
            f"{paged['paged_items']:,} / {paged['items']:,} | {covers} | "
            f"{unshown_text(paged)} |"
        )
    lines += [
        "",
        "### Every call",
        "",
        "| tool | subject | whole | budget | cut | JSON whole | computed ms |",
        "|---|---|---:|---:|---|---:|---:|",
    ]
    for call in answers["calls"]:
        if call["outcome"] != "answer":
            lines.append(
                f"| {call['mcp']} | {call['subject']} | {call['outcome']}: "
                f"{call['message'][:120]} | | | | |"
            )
            continue
        cut = ("yes, as text" if call["cut_as_text"] else "yes") if call["cut"] else ""
        lines.append(
            f"| {call['mcp']} | {call['subject']} | {call['whole_tokens']:,} | "
            f"{call['budget_tokens']:,} | {cut} | {call['json_whole_tokens']:,} | "
            f"{call['computed_ms']:.1f} |"
        )
    return lines


def unshown_text(paged: dict[str, Any]) -> str:
    """The items of the pages' answers their text does not name, per list (a few named)."""
    counts = paged.get("items_not_in_text") or {}
    return (
        "; ".join(
            f"{place}: {count} (e.g. {', '.join(paged['items_not_in_text_first'][place][:2])})"
            for place, count in counts.items()
        )
        or "0"
    )


def arguments_text(arguments: dict[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in arguments.items())


def list_after(items: list[str]) -> str:
    return (": " + "; ".join(items)) if items else ""


def inspector_section(inspector: dict[str, Any]) -> list[str]:
    lines = ["", "## 3. The MCP Inspector lists and calls every tool", ""]
    if "skipped" in inspector:
        return [*lines, f"Skipped: {inspector['skipped']}."]
    lines += [
        f"`npx -y {INSPECTOR} --cli {sys.executable.rsplit('/', 1)[-1]} -m cartograph.cli "
        "--store sqlite:///… mcp --profile P --method tools/list` and `--method tools/call "
        "--tool-name NAME --tool-arg key=value …`, one Inspector (and server) process per call; "
        f"Inspector {inspector['inspector']}; {inspector['repository']}. Each tool is called "
        "in its own profile with its required arguments (and impact's patch, overlay_edit's "
        "content); the team profile's session is started beforehand through the catalogue "
        "(the agent profile's by its start_session call). Then, outside the agent profile, "
        f"each read is called again cut to `max_tokens={CUT_TO}`: its structured content then "
        f"carries the `{CUT_KEY}` object (the Inspector's SDK checks structured content "
        "against the tool's output schema). A tool error is the server's answer with `isError`; a "
        "protocol failure, the Inspector exiting non-zero.",
        "",
        "| profile | listed by the Inspector | same as the SDK's list | called | answers | "
        f"tool errors | protocol failures | cut to {CUT_TO}: called / answers / tool errors / "
        "protocol failures | a tool of another profile |",
        "|---|---:|---|---:|---:|---:|---:|---|---|",
    ]
    for name, row in inspector["profiles"].items():
        if "calls" not in row:
            lines.append(
                f"| {name} | {row['listed']} | {'yes' if row['same_as_sdk'] else '**no**'} "
                f"| (listed only) | | | | | |"
            )
            continue
        other = row["other_profile_call"]
        lines.append(
            f"| {name} | {row['listed']} | {'yes' if row['same_as_sdk'] else '**no**'} | "
            f"{len(row['calls'])} | {row['answer']} | {row['tool error']} | "
            f"{row['protocol failure']} | {len(row['cut_calls'])} / {row['cut answer']} / "
            f"{row['cut tool error']} / {row['cut protocol failure']} | "
            f"{other['tool']}: {other['outcome']} "
            f"({other['message'][:70]}) |"
        )
    problems = [
        (n, r["list_problem"]) for n, r in inspector["profiles"].items() if r["list_problem"]
    ]
    lines += [f"\nListing failed for {n}: {p}" for n, p in problems]
    failures = [
        (name, call)
        for name, row in inspector["profiles"].items()
        for call in row.get("calls", []) + row.get("cut_calls", [])
        if call["outcome"] != "answer"
    ]
    lines += ["", "Not answered:", ""]
    lines += [
        f"- {name} `{call['tool']}` ({arguments_text(call['arguments'])[:120]}): "
        f"{call['outcome']}: {call['message']}"
        for name, call in failures
    ] or ["- none"]
    lines += [
        "",
        "| profile | tool | arguments | outcome | message (start) | s |",
        "|---|---|---|---|---|---:|",
    ]
    for name, row in inspector["profiles"].items():
        for call in row.get("calls", []) + row.get("cut_calls", []):
            arguments = ", ".join(f"{k}={v}" for k, v in call["arguments"].items())
            message = call["message"].replace("\n", " ").replace("|", "\\|")[:110]
            lines.append(
                f"| {name} | {call['tool']} | {arguments.replace(chr(10), ' ')[:80]} | "
                f"{call['outcome']} | {message} | {call['seconds']:.1f} |"
            )
    return lines


# ---------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--repo-tree", type=Path, help="Django 5.1.4's tree (default: the corpora cache)"
    )
    parser.add_argument(
        "--tokenizers", type=Path, help="a folder whose node_modules hold the tokenizers"
    )
    parser.add_argument(
        "--install-tokenizers",
        action="store_true",
        help=f"npm install them into {TOKENIZER_CACHE} when no folder is given",
    )
    parser.add_argument("--no-inspector", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--keep-work", action="store_true", help=f"keep {WORK}")
    args = parser.parse_args(argv)

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    tokenizers = Tokenizers.find(args.tokenizers, args.install_tokenizers)
    tree = args.repo_tree or fetch("django", "5.1.4")
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    try:
        with MachineWatch() as watch:
            facts = run_facts()
            tree_before = working_tree()
            tool_lists = measure_tool_lists(f"sqlite:///{WORK / 'django.db'}", tokenizers)
            progress("tool lists measured")
            answers = measure_answers(tree, WORK, tokenizers, progress)
            if args.no_inspector:
                inspector: dict[str, Any] = {"skipped": "--no-inspector"}
            else:
                names = {name: row["names"] for name, row in tool_lists["profiles"].items()}
                inspector = measure_inspector(WORK, names, progress)
    finally:
        if not args.keep_work:
            shutil.rmtree(WORK, ignore_errors=True)
    described = (
        f"measured ({tokenizers.folder}: "
        + ", ".join(f"{name}@{version}" for name, version in tokenizers.versions.items())
        + ")"
        if tokenizers.available
        else f"not measured ({tokenizers.problem})"
    )
    report = {
        **facts,
        "seconds": round(time.perf_counter() - started, 1),
        "tokenizers": described,
        "working_tree": {"at_start": tree_before, "at_end": working_tree()},
        "machine_load": watch.summary(),
        "tool_lists": tool_lists,
        "answers": answers,
        "inspector": inspector,
    }
    write_report(NAME, report, to_markdown(report), not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
