"""One text rendering and one JSON form per answer type, used by every surface (the CLI, MCP
tools, REST routes): adapters never format an answer themselves.

Text is written for an agent's context window: one line per item, paths with line numbers,
the indexed commit on top and a pointer to the next page when there is one. The JSON form is the
answer's fields as plain data (`to_data`), except where a field must not leave the server (a
token's hash).

What a repository holds (paths, docstrings, CSS values, commit messages) may hold terminal
escape sequences: every text `render` gives passes through `safetext.visible` (a control
character but newline and tab written as `\\x1b`, `\\r`, …), so printing it moves no cursor and
clears no screen. JSON keeps the exact strings: DEL and C1 characters, which `json.dumps`
leaves as they are, are written as `\\u` escapes there (the same strings once parsed).
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from collections.abc import Callable, Iterator
from typing import Any

from cartograph.admin import (
    IndexReport,
    IssuedToken,
    NewTrackedRepo,
    RevokedToken,
    SyncAnswer,
    UntrackedRepo,
)
from cartograph.agents.overlay import OverlayDropped
from cartograph.agents.sessions import ClaimResult
from cartograph.hooks.install import HookInstall
from cartograph.impact import text as impact_text
from cartograph.impact.evidence import CoverageImport
from cartograph.impact.report import Impact
from cartograph.impact.source import SymbolSource
from cartograph.model import (
    AgentSession,
    ApiToken,
    Claim,
    Lesson,
    OverlayFile,
    Repo,
    Review,
    SymbolRow,
    Unresolved,
)
from cartograph.query.common import Envelope
from cartograph.query.deadcode import DeadCodeReport
from cartograph.query.graph import CallPath, Context, Neighbor, NeighborPage, Trace
from cartograph.query.history import CoChanges, Explanation, HistoryPage, Owners, Partner
from cartograph.query.hotspots import Hotspots
from cartograph.query.listing import FilePage, GraphExport
from cartograph.query.locate import LocationMap, locations_text
from cartograph.query.overview import Overview, Stats
from cartograph.query.schema import GraphSchema
from cartograph.query.search import SearchResult
from cartograph.query.services import ServiceMap
from cartograph.query.tokens import TokenReport
from cartograph.reviews import ForgeSettings
from cartograph.safetext import visible
from cartograph.team import Activity, Release, TeamView
from cartograph.tracking import RepoStatus
from typing_extensions import TypedDict  # pydantic reads it on Python 3.11 (MCP schemas)


def to_data(answer: Any) -> Any:
    """Plain JSON-able data of any answer."""
    form = _JSON_FORMS.get(type(answer))
    if form is not None:
        return form(answer)
    if dataclasses.is_dataclass(answer) and not isinstance(answer, type):
        return {f.name: to_data(getattr(answer, f.name)) for f in dataclasses.fields(answer)}
    if isinstance(answer, dict):
        return {str(k): to_data(v) for k, v in answer.items()}
    if isinstance(answer, list | tuple | set):
        return [to_data(v) for v in answer]
    return answer


def to_json(answer: Any) -> str:
    if isinstance(answer, GraphExport):
        return "".join(json_lines(answer)).rstrip("\n")
    return _json_text(json.dumps(to_data(answer), indent=1, ensure_ascii=False))


def json_lines(export: GraphExport) -> Iterator[str]:
    """An export as JSON lines (its text and its JSON form), read as it is written out."""
    for item in export.items:
        yield _json_text(json.dumps(item, ensure_ascii=False)) + "\n"


_JSON_CONTROL = re.compile("[\x7f-\x9f]")


def _json_text(text: str) -> str:
    """JSON whose DEL and C1 characters (only ever inside its strings) are `\\u` escapes."""
    return _JSON_CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def streamed(answer: Any, as_json: bool = False, answer_type: Any = None) -> Iterator[str]:
    """An answer's text or JSON form in pieces to write out: an export line by line, as it is
    read; any other answer in one piece."""
    if isinstance(answer, GraphExport):
        yield from json_lines(answer)
    else:
        yield to_json(answer) + "\n" if as_json else render(answer, answer_type)


def shown_in_text(answer: Any) -> dict[str, int]:
    """How many items of each of its lists an answer's text shows at most (the rest it counts);
    an answer cut to a budget goes on from there (cartograph.budget)."""
    return impact_text.SHOWN if isinstance(answer, Impact) else {}


def render(answer: Any, answer_type: Any = None) -> str:
    """The text of an answer. `answer_type` is the type an operation declares (`list[Claim]`)
    when the answer's own type does not say it (a list)."""
    renderer = _RENDERERS.get(answer_type) or _RENDERERS.get(type(answer))
    if renderer is None:
        return to_json(answer) + "\n"
    return visible(renderer(answer).rstrip(), keep="\n\t") + "\n"


# ---------------------------------------------------------------- pieces


def _where(symbol: SymbolRow) -> str:
    span = (
        f"{symbol.start_line}-{symbol.end_line}"
        if symbol.end_line > symbol.start_line
        else str(symbol.start_line)
    )
    return f"{symbol.path}:{span}"


class _Marks(set):
    """The stale "repo:path"s of an answer, and whether it spans repositories (then every
    location names its repository)."""

    across = False


def _marks(envelope: Envelope) -> _Marks:
    marks = _Marks(envelope.stale)
    marks.across = len(envelope.repos) > 1
    return marks


def _one(symbol: SymbolRow, stale: set[str] | None = None) -> str:
    mark = " [stale]" if stale and f"{symbol.repo}:{symbol.path}" in stale else ""
    where = _where(symbol)
    if isinstance(stale, _Marks) and stale.across:
        where = f"{symbol.repo}:{where}"
    return f"{symbol.kind:<8} {symbol.qualname}  {where}{mark}"


def _header(envelope: Envelope) -> str:
    parts = []
    for repo in envelope.repos:
        sha = repo.indexed_sha[:10] if repo.indexed_sha else "no commit"
        dirty = ", uncommitted changes" if repo.dirty else ""
        parts.append(f"{repo.name}@{sha} ({repo.indexed_at}{dirty})")
    line = "# indexed: " + "; ".join(parts) if parts else "# indexed: -"
    if envelope.stale:
        shown = ", ".join(envelope.stale[:10])
        more = f" and {len(envelope.stale) - 10} more" if len(envelope.stale) > 10 else ""
        line += f"\n# changed on disk since indexed (re-run `cartograph index`): {shown}{more}"
    for crossing in envelope.crossings:
        commit = crossing.provider_commit[:10] or "no commit"
        version = f" {crossing.provider_version}" if crossing.provider_version else ""
        declared = crossing.locked or crossing.required or "any version"
        note = f": {crossing.mismatch}" if crossing.mismatch else ""
        line += (
            f"\n# across repositories: {crossing.consumer} uses {crossing.package} from "
            f"{crossing.provider}{version}@{commit} (declares {declared}){note}"
        )
    for unbound in envelope.unbound:
        line += (
            f"\n# not counted: {unbound.consumer} imports {unbound.package}, which "
            f"{', '.join(unbound.providers)} provide, and binds none of it (its uses are not in "
            f"the graph; choose one in {unbound.consumer}'s .cartograph.toml [providers])"
        )
    return line


def _unresolved(call: Unresolved) -> str:
    """An unresolved call's line: the callee as written, where, and why it is unknown."""
    why = [f"from {call.external}"] if call.external else []
    if call.reason and call.reason != "external":
        why.append(call.reason)
    return f"  {call.name}  l.{call.line}" + (f"  ({'; '.join(why)})" if why else "")


def _neighbor(item: Neighbor, stale: set[str]) -> str:
    lines = ",".join(str(n) for n in item.lines[:5])
    count = f" x{item.count}" if item.count > 1 else ""
    kind = "" if item.type == "CALLS" else f" {item.type.lower()}"
    crosses = ", across repositories" if item.crosses else ""
    through = f", through {item.through}" if item.through else ""
    return (
        f"  {_one(item.symbol, stale)}  (l.{lines}{count} via {item.via}{kind}{crosses}{through})"
    )


def _page_hint(total: int, shown: int, offset: int, next_offset: int | None) -> str:
    if next_offset is None:
        return ""
    return f"  … {total - offset - shown} more: repeat with --offset {next_offset}\n"


# ---------------------------------------------------------------- answers


def _search(result: SearchResult) -> str:
    out = [_header(result.envelope)]
    if not result.hits:
        out.append(f"no symbol matches {result.query!r}")
        return "\n".join(out)
    out.append(f"search {result.query!r}:")
    stale = _marks(result.envelope)
    for hit in result.hits:
        out.append("  " + _one(hit.symbol, stale))
        detail = hit.symbol.signature
        if hit.symbol.doc:
            detail = f"{detail}  — {hit.symbol.doc}" if detail else hit.symbol.doc
        if detail:
            out.append(f"      {detail[:160]}")
    if result.next_offset is not None:
        out.append(f"  … more: repeat with --offset {result.next_offset}")
    return "\n".join(out)


def _locations(found: LocationMap) -> str:
    return locations_text(found, _header(found.envelope))


def _hooks(done: HookInstall) -> str:
    lines = [f"{done.agent} ({done.scope}): {done.settings}"]
    lines += [f"  added {item}" for item in done.added]
    lines += [f"  removed {item}" for item in done.removed]
    if not done.added and not done.removed:
        lines.append("  nothing to change")
    if done.kept:
        lines.append(f"  {done.kept} hook groups of your own left as they were")
    lines += [f"  {path}" for path in done.files]
    if done.server:
        lines.append(f"  talking to the team server {done.server}")
    lines += [f"note: {note}" for note in done.notes]
    return "\n".join(lines) + "\n"


def _neighbors(page: NeighborPage) -> str:
    stale = _marks(page.envelope)
    out = [_header(page.envelope), _one(page.symbol, stale)]
    label = "called by" if page.direction == "callers" else "calls"
    over_http = sum(1 for item in page.items if item.through and item.via != "decorated")
    by_name = sum(1 for item in page.items if item.via == "decorated")
    extra = f" + {over_http} over HTTP" if over_http else ""
    extra += f" + {by_name} through a decorator's wrapper" if by_name else ""
    out.append(
        f"{label} ({page.total}{extra}):" if page.total else f"{label}: nothing in the index"
    )
    out.extend(_neighbor(item, stale) for item in page.items)
    hint = _page_hint(
        page.total, len(page.items) - over_http - by_name, page.offset, page.next_offset
    )
    if hint:
        out.append(hint.rstrip())
    if page.unresolved:
        out.append(f"unresolved calls ({len(page.unresolved)}):")
        out.extend(_unresolved(u) for u in page.unresolved[:20])
    return "\n".join(out)


def _context(ctx: Context) -> str:
    stale = _marks(ctx.envelope)
    symbol = ctx.symbol
    out = [_header(ctx.envelope), f"{symbol.kind} {symbol.qualname}"]
    mark = "  [changed on disk since indexed]" if f"{symbol.repo}:{symbol.path}" in stale else ""
    out.append(f"  at {symbol.repo}:{_where(symbol)}{mark}")
    out.append(f"  id {symbol.id}")
    if symbol.signature:
        out.append(f"  {symbol.signature}")
    if symbol.decorators:
        out.append("  decorators: " + ", ".join("@" + d for d in symbol.decorators))
    if symbol.doc:
        out.append(f'  """{symbol.doc}"""')
    if ctx.parent is not None and ctx.parent.kind != "module":
        out.append(f"  in {ctx.parent.kind} {ctx.parent.qualname} ({_where(ctx.parent)})")
    if ctx.bases:
        out.append("  bases: " + ", ".join(b.qualname for b in ctx.bases))
    if ctx.subclasses:
        out.append("  subclasses: " + ", ".join(s.qualname for s in ctx.subclasses[:15]))
    if ctx.overrides:
        out.append("  overrides: " + ", ".join(s.qualname for s in ctx.overrides))
    if ctx.overridden_by:
        out.append("  overridden by: " + ", ".join(s.qualname for s in ctx.overridden_by[:15]))
    if ctx.members:
        out.append(f"members ({len(ctx.members)}):")
        out.extend(
            f"  {m.kind:<8} {m.name}  l.{m.start_line}  {m.signature[:100]}"
            for m in ctx.members[:60]
        )
        if len(ctx.members) > 60:
            out.append(f"  … {len(ctx.members) - 60} more")
    for page, label in ((ctx.callers, "called by"), (ctx.callees, "calls")):
        if page.total:
            out.append(f"{label} ({page.total}):")
            out.extend(_neighbor(item, stale) for item in page.items)
            if page.total > len(page.items):
                verb = "callers" if page.direction == "callers" else "callees"
                out.append(
                    f"  … {page.total - len(page.items)} more: `cartograph {verb} {symbol.qualname}`"
                )
        else:
            out.append(f"{label}: nothing in the index")
    if ctx.referenced_by:
        out.append(f"referenced by ({len(ctx.referenced_by)}):")
        out.extend(_neighbor(item, stale) for item in ctx.referenced_by)
    calls = [u for u in ctx.callees.unresolved if u.kind == "call"]
    if calls:
        out.append(f"unresolved calls ({len(calls)}):")
        out.extend(_unresolved(u) for u in calls[:15])
    if ctx.lessons:
        out.append(f"lessons left by agents ({len(ctx.lessons)}):")
        out.extend(f"  [{x.at[:10]} {x.agent}] {x.text}" for x in ctx.lessons)
    out.append(
        "(open the file before editing: the graph says where to look, the source is the truth)"
    )
    return "\n".join(out)


def _trace(trace: Trace) -> str:
    stale = _marks(trace.envelope)
    arrow = "calls" if trace.direction == "out" else "is called by"
    out = [_header(trace.envelope), f"{_one(trace.root, stale)}  ({arrow}, depth {trace.depth})"]
    children: dict[str, list] = {}
    for step in trace.steps:
        children.setdefault(step.parent, []).append(step)

    expanded: set[str] = set()  # the steps whose children are drawn under them

    def walk(node_id: str, indent: int) -> None:
        expanded.add(node_id)
        for step in children.get(node_id, []):
            repeat = "  (shown above)" if step.repeated else ""
            out.append(f"{'  ' * indent}└ {_one(step.symbol, stale)}  [{step.edge.via}]{repeat}")
            if not step.repeated:
                walk(step.symbol.id, indent + 1)

    walk(trace.root.id, 1)
    # a trace cut to a budget and continued: steps under callers an earlier page showed (not
    # on this page, or on it only as "shown above")
    for parent in [p for p in children if p not in expanded]:
        out.append(f"  under {parent} (shown before):")
        walk(parent, 2)
    if not trace.steps:
        out.append("  (nothing in the index)")
    if trace.truncated:
        out.append("  … some nodes have more children: raise --fanout to see them")
    return "\n".join(out)


def _path(path: CallPath) -> str:
    stale = _marks(path.envelope)
    out = [_header(path.envelope)]
    if path.steps is None:
        out.append(
            f"no call path from {path.source.qualname} to {path.target.qualname} "
            f"within {path.max_depth} calls"
        )
        return "\n".join(out)
    if not path.steps:
        out.append(f"{path.source.qualname} is {path.target.qualname}")
        return "\n".join(out)
    out.append(f"{len(path.steps)} call(s):")
    out.append("  " + _one(path.source, stale))
    for step in path.steps:
        lines = ",".join(str(n) for n in step.edge.lines[:3])
        out.append(f"  → {_one(step.target, stale)}  (l.{lines} via {step.edge.via})")
    return "\n".join(out)


def _dead(report: DeadCodeReport) -> str:
    stale = _marks(report.envelope)
    counts = ", ".join(f"{v}: {n}" for v, n in report.counts.items())
    out = [_header(report.envelope), f"{report.repo}: {counts}"]
    for item in report.items:
        out.append(f"  {item.verdict:<7} {_one(item.symbol, stale)}  — {item.reason}")
    if report.next_offset is not None:
        out.append(f"  … more: repeat with --offset {report.next_offset}")
    return "\n".join(out)


def _services(view: ServiceMap) -> str:
    stale = _marks(view.envelope)
    out = [_header(view.envelope), f"{view.repo}: {view.route_total} routes served"]
    for served in view.routes:
        handler = f" → {_one(served.handler, stale)}" if served.handler else ""
        reached = f"  ({served.requests} requests of indexed code)" if served.requests else ""
        out.append(f"  {served.route.name}{handler}{reached}")
    if len(view.routes) < view.route_total:
        out.append(f"  … {view.route_total - len(view.routes)} more: raise --limit")
    if view.clients:
        callers = ", ".join(f"{repo} ({n})" for repo, n in view.clients.items())
        out.append(f"requests reaching these routes, by repository: {callers}")
    out.append(f"requests sent ({view.request_total}):")
    for sent in view.requests:
        source = sent.source.qualname if sent.source else "?"
        where = f"{sent.source.path}:{sent.line}" if sent.source else f"l.{sent.line}"
        target = (
            f"→ {sent.route.repo}:{sent.route.name} via {sent.via}"
            if sent.route
            else f"unmatched, base {sent.base or '(relative)'}"
        )
        out.append(f"  {sent.method} {sent.path}  {source} {where} [{sent.library}]  {target}")
    if len(view.requests) < view.request_total:
        out.append(f"  … {view.request_total - len(view.requests)} more: raise --limit")
    if view.unmatched_by_base:
        hosts = ", ".join(
            f"{base or '(relative)'} ({n})" for base, n in view.unmatched_by_base.items()
        )
        out.append(f"unmatched, by base URL: {hosts}")
        out.append("  (map a base to the repository serving it: .cartograph.toml [services])")
    return "\n".join(out)


def _overview(view: Overview) -> str:
    out = [_header(view.envelope), f"{view.repo}: {view.files} files, {view.lines} lines"]
    out.append("packages (files, lines; imports):")
    for package in view.packages:
        tests = f", {package.test_files} test" if package.test_files else ""
        deps = ", ".join(f"{name}({n})" for name, n in package.imports)
        ext = ", ".join(f"{name}({n})" for name, n in package.external)
        line = f"  {package.name or '(root)'}: {package.files} files{tests}, {package.lines} lines"
        if deps:
            line += f"; → {deps}"
        if ext:
            line += f"; external → {ext}"
        out.append(line)
    if view.external_packages:
        out.append(
            "external packages: " + ", ".join(f"{n}({c})" for n, c in view.external_packages)
        )
    if view.most_called:
        out.append("most called:")
        out.extend(f"  {n:>4}  {_one(s)}" for s, n in view.most_called)
    provided = [
        f"{p.ecosystem} {p.name or '(unnamed)'}{' ' + p.version if p.version else ''}"
        + (f" [{', '.join(p.imports)}]" if p.imports and p.imports != [p.name] else "")
        for p in view.provides
    ]
    if provided:
        out.append("provides: " + "; ".join(provided))
    for title, links in (
        ("uses (providers)", view.providers),
        ("used by (consumers)", view.consumers),
    ):
        if links:
            out.append(f"{title}:")
            for link in links:
                packages = ", ".join(link.packages) or "-"
                out.append(f"  {link.repo}: {link.edges} edges; packages {packages}")
                out.extend(f"    version: {m}" for m in link.mismatches)
    for name, repos in view.ambiguous.items():
        out.append(
            f"ambiguous: {name} is provided by {', '.join(repos)}; nothing bound to it "
            "(choose one in .cartograph.toml [providers])"
        )
    out.extend(f"manifest: {note}" for note in view.manifest_notes)
    return "\n".join(out)


def _design_tokens(report: TokenReport) -> str:
    stale = _marks(report.envelope)
    stale.across = True  # a token is about where, in which repository
    subject = report.name or f"tokens of {report.repo}"
    out = [_header(report.envelope), f"{subject}: {len(report.definitions)} definitions"]
    for item in report.definitions:
        users = ", ".join(f"{repo} ({n})" for repo, n in item.used_by.items())
        selector = f" in {item.selector}" if item.selector else ""
        used = f"used by {users}" if users else "no uses"
        out.append(f"  {_one(item.symbol, stale)}  = {item.value}{selector}; {used}")
    if report.truncated:
        out.append("  … more: raise --limit")
    if report.consumers:
        out.append(
            "used from other repositories: "
            + ", ".join(f"{repo} ({n} uses)" for repo, n in report.consumers.items())
        )
    for override in report.overrides:
        values = "; ".join(f"{repo}: {', '.join(v)}" for repo, v in override.values.items())
        out.append(
            f"overridden: {override.name} defined in {', '.join(override.defined_in)} ({values})"
        )
    for name, places in report.defined_twice.items():
        out.append(f"defined twice: {name} at {', '.join(places)}")
    for value, names in report.same_value.items():
        out.append(f"same value: {value} under {', '.join(names)}")
    return "\n".join(out)


def _stats(stats: Stats) -> str:
    out = [_header(stats.envelope), f"{stats.repo}: {stats.files} files"]
    out.append(
        "languages: "
        + ", ".join(
            f"{lang} {v['files']} files/{v['lines']} lines" for lang, v in stats.languages.items()
        )
    )
    out.append("symbols: " + ", ".join(f"{k} {v}" for k, v in stats.symbols.items()))
    out.append("edges: " + ", ".join(f"{k} {v}" for k, v in stats.edges.items()))
    out.append(
        f"call sites: {stats.resolved_call_sites} resolved, {stats.unresolved_call_sites} "
        f"unresolved ({stats.unresolved_rate:.1%}; {stats.unresolved_external} into external "
        f"libraries)"
    )
    if stats.unresolved_reasons:
        out.append(
            "why unresolved: "
            + ", ".join(
                f"{reason or 'not recorded'} {n}" for reason, n in stats.unresolved_reasons.items()
            )
        )
    if stats.files_with_syntax_errors:
        out.append(f"files with syntax errors (indexed partly): {stats.files_with_syntax_errors}")
    if stats.skipped:
        out.append(f"skipped files ({stats.skipped_total}):")
        for reason, paths in sorted(stats.skipped.items()):
            shown = ", ".join(paths[:5]) + (f", … ({len(paths)})" if len(paths) > 5 else "")
            out.append(f"  {reason}: {shown}")
    if stats.stale_files:
        out.append(
            f"changed on disk since indexed ({len(stats.stale_files)}): "
            + ", ".join(stats.stale_files[:10])
        )
    return "\n".join(out)


def _commit_line(touch) -> str:
    who = touch.name or touch.author
    if "#" in touch.target:  # a symbol: the lines its hunks touched
        change = f"{touch.added} lines"
    else:
        change = f"+{touch.added}/-{touch.deleted}"
    subject = touch.message.splitlines()[0][:90] if touch.message else ""
    return f"  {touch.sha[:10]} {touch.at[:10]} {who}  {change}  {subject}"


def _history(page: HistoryPage) -> str:
    out = [_header(page.envelope), f"history of {page.target.kind} {page.target.label}:"]
    if not page.entries:
        out.append("  no commit in the mined history changed it")
    out.extend(_commit_line(t) for t in page.entries)
    if page.next_offset is not None:
        out.append(f"  … more: repeat with --offset {page.next_offset}")
    return "\n".join(out)


def _partner(partner: Partner) -> str:
    where = f"  {_where(partner.symbol)}" if partner.symbol else ""
    return f"  {partner.score:.2f}  x{partner.count}  w{partner.weight:.2f}  {partner.name}{where}"


def _cochanges(result: CoChanges) -> str:
    out = [_header(result.envelope),
           f"changes together with {result.target.kind} {result.target.label}, most trusted "
           f"first (score, times together, weight = shared commits / the fewer commits of "
           f"the two; seen at least {result.min_count} times):"]  # fmt: skip
    if not result.partners:
        out.append("  nothing yet")
    out.extend(_partner(p) for p in result.partners)
    return "\n".join(out)


def _owner_lines(result: Owners) -> list[str]:
    out = []
    for owner in result.owners:
        bot = " [bot]" if owner.bot else ""
        out.append(
            f"  {owner.share:6.1%}  {owner.name} <{owner.email}>{bot}  {owner.commits} commits, "
            f"{owner.lines} lines, last {owner.last[:10]}"
        )
    if result.codeowners:
        out.append("  CODEOWNERS: " + " ".join(result.codeowners))
    return out


def _owners(result: Owners) -> str:
    out = [_header(result.envelope),
           f"owners of {result.target.kind} {result.target.label} (changed lines, halved every "
           f"{result.half_life_days:.0f} days of age):"]  # fmt: skip
    lines = _owner_lines(result)
    out.extend(lines or ["  no commit in the mined history changed it"])
    return "\n".join(out)


def _explain(result: Explanation) -> str:
    out = [_context(result.context).rstrip()]
    out.append("last commits:" if result.history else "last commits: none mined")
    out.extend(_commit_line(t) for t in result.history)
    if result.owners.owners or result.owners.codeowners:
        out.append("owners:")
        out.extend(_owner_lines(result.owners)[:6])
    if result.partners:
        out.append("symbols that change with it:")
        out.extend(_partner(p) for p in result.partners)
    if result.file_partners:
        out.append("files that change with its file:")
        out.extend(_partner(p) for p in result.file_partners)
    return "\n".join(out)


def _index(report: IndexReport) -> str:
    result = report.index
    changed = (
        f"{result.parsed} parsed, {result.unchanged} unchanged, {result.deleted} deleted, "
        f"{result.reresolved} re-resolved, {result.skipped} skipped"
    )
    out = [
        f"indexed {result.repo} from {result.root} in {result.total_seconds:.2f} s "
        f"({result.files} files: {changed}) into {report.store}"
    ]
    mined = result.history
    if mined is not None and (mined.commits or mined.rebuilt):
        out.append(
            f"history: {mined.commits} commits mined ({mined.touches} file and "
            f"{mined.symbol_touches} symbol changes) in {mined.seconds:.2f} s"
        )
        out.extend(f"history: {note}" for note in mined.notes)
    if result.consumers:
        consumers = ", ".join(f"{repo} ({n} files)" for repo, n in result.consumers.items())
        out.append(f"consumers re-resolved: {consumers}")
    out.extend(result.notes)
    if result.syntax_errors:
        shown = ", ".join(result.syntax_errors[:5])
        more = " …" if len(result.syntax_errors) > 5 else ""
        out.append(f"syntax errors (indexed what parses): {shown}{more}")
    out.append(_stats(report.stats).rstrip())
    out.append(
        "next: cartograph search NAME · cartograph context NAME · "
        f"cartograph overview --repo {result.repo}"
    )
    return "\n".join(out)


def _repos(repos: list[Repo]) -> str:
    if not repos:
        return "nothing indexed yet: cartograph index PATH"
    lines = []
    for repo in repos:
        sha = repo.indexed_sha[:10] or "no commit"
        dirty = " (uncommitted changes)" if repo.dirty else ""
        lines.append(f"{repo.name}  {sha}{dirty}  indexed {repo.indexed_at}  {repo.root}")
    return "\n".join(lines)


def _files(page: FilePage) -> str:
    out = [f"{page.repo}: {page.total} files" + (f", from {page.offset}" if page.offset else "")]
    for record in page.items:
        test = "  test" if record.is_test else ""
        out.append(f"  {record.path}  {record.language}  {record.lines} lines{test}")
    if page.next_offset is not None:
        out.append(f"  … more: repeat with --offset {page.next_offset}")
    return "\n".join(out)


def _export(export: GraphExport) -> str:
    return "".join(json_lines(export))


def _schema(schema: GraphSchema) -> str:
    return schema.text


def _session(session: AgentSession) -> str:
    state = f"ended {session.ended_at}" if session.ended_at else f"last seen {session.last_seen}"
    return (
        f"session {session.id} of {session.agent} (task: {session.task}): started "
        f"{session.started_at}, {state}"
    )


def _claim_result(result: ClaimResult) -> str:
    return result.message


def _claims(claims: list[Claim]) -> str:
    lines = [
        f"{c.repo}:{c.path}  {c.intent} by session {c.session} of {c.agent} "
        f"(task: {c.task}) since {c.since}, until {c.expires_at}"
        for c in claims
    ]
    return "\n".join(lines) or "no file is claimed"


def _release(result: Release) -> str:
    return f"released {result.path}" if result.released else f"you held no claim on {result.path}"


def _activity(activity: Activity) -> str:
    done = "read" if activity.kind == "read" else "edited"
    where = "" if activity.recorded else " (not an indexed file: no trail left)"
    return f"session {activity.session} {done} {activity.repo}:{activity.path}{where}"


def _hotspots(found: Hotspots) -> str:
    lines = [f"hot spots of {found.repo} (churn times fan-in):"]
    if not found.mined:
        lines.append("  no history mined yet: churn is unknown")
    for spot in found.spots:
        who = ", ".join(o.name or o.email for o in spot.owners) or "-"
        lines.append(
            f"  {spot.score:>6}  {spot.path}  {spot.churn} commits, {spot.fan_in} calls in  ({who})"
        )
    if found.clusters:
        lines += ["", "co-change clusters:"]
        for cluster in found.clusters:
            more = (
                f" (+{cluster.size - len(cluster.files)})"
                if cluster.size > len(cluster.files)
                else ""
            )
            lines.append(
                f"  {cluster.size} files, up to {cluster.commits} commits together: "
                f"{', '.join(cluster.files)}{more}"
            )
    return "\n".join(lines)


def _source(source: SymbolSource) -> str:
    width = len(str(source.start_line + len(source.lines)))
    lines = [f"{_where(source.symbol)}" + (f" at {source.commit[:12]}" if source.commit else "")]
    lines += [f"{source.start_line + i:>{width}}  {line}" for i, line in enumerate(source.lines)]
    if source.cut:
        lines.append("… (longer: open the file)")
    return "\n".join(lines)


def _team(view: TeamView) -> str:
    lines = []
    for at_work in view.sessions:
        lines.append(_session(at_work.session))
        lines.extend(
            f"  claims {c.repo}:{c.path} ({c.intent}) since {c.since}" for c in at_work.claims
        )
        lines.extend(f"  {t.kind} {t.repo}:{t.path} at {t.at}" for t in at_work.recent)
        if at_work.touched > len(at_work.recent):
            lines.append(f"  … {at_work.touched - len(at_work.recent)} earlier reads and edits")
    if not lines:
        lines.append("no session is at work")
    if view.lessons:
        lines += ["", "lessons:", _lessons(view.lessons)]
    return "\n".join(lines)


def _overlay_file(f: OverlayFile) -> str:
    held = "deleted" if f.gone else f"{f.size} bytes"
    return f"{f.repo}:{f.path}  {held}, session {f.session}'s own version since {f.at}"


def _overlay(files: list[OverlayFile]) -> str:
    return "\n".join(_overlay_file(f) for f in files) or "the overlay is empty"


def _overlay_dropped(dropped: OverlayDropped) -> str:
    return f"session {dropped.session}'s overlay dropped ({dropped.files} files)"


def _lesson(lesson: Lesson) -> str:
    return f"lesson {lesson.id} stored about {', '.join(lesson.about) or 'nothing in particular'}"


def _lessons(lessons: list[Lesson]) -> str:
    return (
        "\n".join(
            f"[{x.at} {x.agent}, about {', '.join(x.about) or '-'}] {x.text}" for x in lessons
        )
        or "no lessons"
    )


def _issued_token(issued: IssuedToken) -> str:
    return f"token {issued.name} ({', '.join(issued.scopes)}), shown only now:\n{issued.token}"


def _tokens(tokens: list[ApiToken]) -> str:
    lines = []
    for t in tokens:
        state = f"revoked {t.revoked_at}" if t.revoked_at else "active"
        lines.append(f"{t.name}  {','.join(t.scopes)}  created {t.created_at}  {state}")
    return "\n".join(lines) or "no tokens"


def _revoked(revoked: RevokedToken) -> str:
    return f"revoked {revoked.name}"


def _token_data(token: ApiToken) -> dict:
    """A token as it may be shown: never its hash."""
    return {
        "name": token.name,
        "scopes": list(token.scopes),
        "created_at": token.created_at,
        "revoked_at": token.revoked_at,
    }


def _new_tracked(tracked: NewTrackedRepo) -> str:
    return "\n".join(
        [
            f"tracking {tracked.name}: {tracked.url} ({tracked.branch})",
            f"webhook secret (shown once): {tracked.secret}",
            "webhook paths: " + ", ".join(tracked.webhooks),
            f"next: cartograph repo sync {tracked.name}",
        ]
    )


def _status(status: RepoStatus) -> str:
    indexed = status.indexed_sha[:10] or "not indexed"
    lag = "?" if status.lag is None else status.lag
    line = (
        f"{status.name}  {status.branch}  indexed {indexed}  head {status.head_sha[:10] or '?'}"
        f"  lag {lag}  queue {status.queue_depth}"
    )
    if status.last_job_at:
        line += f"  last job {status.last_job_seconds:.1f} s at {status.last_job_at}"
    if status.last_error:
        line += f"\n  last error ({status.last_error_at}): {status.last_error}"
    return line


def _statuses(statuses: list[RepoStatus]) -> str:
    return "\n".join(_status(s) for s in statuses) or "no tracked repositories"


def _untracked(untracked: UntrackedRepo) -> str:
    kept = " (its graph is kept)" if untracked.kept_graph else ""
    return f"{untracked.name} is no longer tracked{kept}"


def _sync(answer: SyncAnswer) -> str:
    if answer.queued:
        running = "" if answer.job_started else " (a job is running)"
        return f"queued {answer.repo} at {answer.target}{running}"
    return "\n".join(" ".join(f"{k}={v}" for k, v in fields.items()) for fields in answer.results)


def _impact(answer: Impact) -> str:
    if answer.format == "markdown":
        return impact_text.markdown(answer)
    return impact_text.text(answer, _header(answer.envelope))


def _review_line(review: Review) -> str:
    state = review.verdict or (f"failed: {review.error}" if review.error else "computing")
    posted = f", posted {review.comment_url}" if review.comment_url else ""
    failed = f", posting failed: {review.post_error}" if review.post_error else ""
    return (f"#{review.number} {review.title!r} head {review.head_sha[:10]} into "
            f"{review.base_ref or '-'}: {state} ({review.computed_at or 'pending'}{posted}{failed})")  # fmt: skip


def _review(review: Review) -> str:
    if review.markdown:
        return _review_line(review) + "\n\n" + review.markdown
    return _review_line(review) + "\n"


def _reviews(found: list[Review]) -> str:
    if not found:
        return "no pull-request report yet (they come with pull_request webhooks)\n"
    return "".join(_review_line(r) + "\n" for r in found)


def _review_data(review: Review) -> dict:
    data = {f.name: getattr(review, f.name) for f in dataclasses.fields(review)}
    data["report"] = json.loads(review.report) if review.report else None
    return data


def _forge(settings: ForgeSettings) -> str:
    if not settings.forge:
        return f"{settings.name}: pull-request reports are kept, not posted\n"
    return (f"{settings.name}: reports posted to {settings.forge} {settings.forge_project} "
            f"at {settings.forge_url}\n")  # fmt: skip


def _coverage(imported: CoverageImport) -> str:
    lines = [
        f"{imported.repo}: {imported.matched} of {imported.tests} tests matched, "
        f"{imported.pairs} test→symbol pairs over {imported.symbols} symbols "
        f"(against {imported.commit[:10] or 'no commit'}; {imported.source})"
    ]
    if imported.unmatched:
        lines.append("not in the graph: " + ", ".join(imported.unmatched[:10]))
    lines += [f"note: {note}" for note in imported.notes]
    return "\n".join(lines) + "\n"


def _impact_data(answer: Impact) -> dict:
    data = {f.name: to_data(getattr(answer, f.name)) for f in dataclasses.fields(answer)}
    if answer.format == "markdown":
        data["markdown"] = impact_text.markdown(answer)
    return data


class TokenView(TypedDict):
    """A token as answers show it (`_token_data`)."""

    name: str
    scopes: list[str]
    created_at: str
    revoked_at: str


def _review_view() -> Any:
    fields = typing.get_type_hints(Review)
    fields["report"] = dict[str, Any] | None  # the stored report, parsed (`_review_data`)
    return TypedDict("ReviewView", fields)  # type: ignore[operator]


def json_form_type(answer_type: Any) -> Any:
    """The type an answer's JSON form has, for a schema of it (MCP's output schema): the
    answer's own type, except for those with a form of their own (_JSON_FORMS)."""
    forms = {ApiToken: TokenView, GraphExport: list[dict[str, Any]], Review: _review_view()}
    if typing.get_origin(answer_type) is list:
        (item,) = typing.get_args(answer_type)
        return list[forms.get(item, item)]  # type: ignore[misc]
    return forms.get(answer_type, answer_type)


_JSON_FORMS: dict[type, Callable[[Any], Any]] = {
    ApiToken: _token_data,
    GraphExport: lambda export: list(export.items),
    Impact: _impact_data,
    Review: _review_data,
}

_RENDERERS: dict[Any, Callable[[Any], str]] = {
    Impact: _impact,
    Review: _review,
    list[Review]: _reviews,
    ForgeSettings: _forge,
    CoverageImport: _coverage,
    SearchResult: _search,
    LocationMap: _locations,
    HookInstall: _hooks,
    NeighborPage: _neighbors,
    Context: _context,
    Trace: _trace,
    CallPath: _path,
    DeadCodeReport: _dead,
    ServiceMap: _services,
    Overview: _overview,
    Stats: _stats,
    HistoryPage: _history,
    CoChanges: _cochanges,
    Owners: _owners,
    Explanation: _explain,
    IndexReport: _index,
    TokenReport: _design_tokens,
    list[Repo]: _repos,
    FilePage: _files,
    GraphExport: _export,
    GraphSchema: _schema,
    AgentSession: _session,
    ClaimResult: _claim_result,
    list[Claim]: _claims,
    Release: _release,
    Activity: _activity,
    TeamView: _team,
    SymbolSource: _source,
    Hotspots: _hotspots,
    OverlayFile: _overlay_file,
    list[OverlayFile]: _overlay,
    OverlayDropped: _overlay_dropped,
    Lesson: _lesson,
    list[Lesson]: _lessons,
    IssuedToken: _issued_token,
    list[ApiToken]: _tokens,
    RevokedToken: _revoked,
    NewTrackedRepo: _new_tracked,
    RepoStatus: _status,
    list[RepoStatus]: _statuses,
    UntrackedRepo: _untracked,
    SyncAnswer: _sync,
}
