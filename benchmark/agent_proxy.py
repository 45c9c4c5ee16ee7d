"""An offline proxy for the agent A/B harness: no model, no agent. For each task of the A/B
task files, what it costs to reach the files the real fix changed (a) through Cartograph's
answers and (b) by grepping for the task's identifiers and reading what matches. It is a
proxy: it counts the text a fixed policy would put in front of an agent, not what an agent
does; the A/B harness (`python -m benchmark.agent_ab`) measures agents.

The tree is the task's repository at its commit (benchmark.agent_ab.sources: a clone, a local
mirror or a local path), indexed into a fresh SQLite store (no history mining).

Tokens: `cartograph.budget.estimate_tokens` of each text (the count MCP's budgets use), the
same rule for both sides.

Identifiers of a task (both sides use them): the code-like words of the prompt — CamelCase
words (two capitals or more: `ValueError`), snake_case words, dotted names and names called
(`gen(`, not the `(s)` of "file(s)"); inside backticks also ALL-CAPS names of 3 letters or
more (`PAGER`) and a span that is one identifier (`after_this_request`, `less`). A dotted name
is searched by its last part (`click.echo` -> `echo`, the name a definition has); names under
3 characters, Python keywords, True/False/None/self/cls and dunders (`__name__`) are dropped.
The message of a backticked error (`ValueError: urls must start with a leading slash`) is a
term too, as a fixed string: its longest stretch without quotes or brackets, when that has 3
words or more. When the prompt has no term, its first 5 words of 4 letters or more that are
not common English words.

(a) Cartograph, as the MCP tools give their answers (`answering.run_fitted`: the text
`cartograph mcp` sends, within its default budget of AGENT_MAX_TOKENS):
  1. `locate` with the prompt (the tool's defaults: 5 locations, confidence 20 %);
  2. `get_context` of each located function in rank order, until every expected file has had
     the context of one of its symbols fetched;
  3. if an expected file is still missing: `search_symbols` for each identifier in order (10
     hits), and `get_context` of the first hit in each missing expected file, until none is
     missing.
  An expected file is *found* when the context of a symbol in it was fetched, *named* when its
  path appears in any answer's text.
(b) Grep: `grep -rlw` for each identifier over the tree's files (the list of matching paths is
  read too), the matched files ranked by their number of matches (all identifiers; ties by
  path), then read whole in that order until every expected file has been read (found), or all
  of them when one never matches.

Per task: each side's tokens and whether it found every expected file; overall: sums,
medians and the ratio grep / Cartograph.

    python -m benchmark.agent_proxy [--tasks benchmark/agent_tasks] [--only ID ...]
        [--mirrors DIR] [--mirror URL=GITDIR] [--no-write]

Writes benchmark/results/agent-proxy-<date>.md and .json."""

from __future__ import annotations

import argparse
import keyword
import re
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cartograph.answering import run_fitted
from cartograph.budget import AGENT_MAX_TOKENS, estimate_tokens
from cartograph.index import index_repository
from cartograph.operations import Services
from cartograph.operations.catalogue import operation
from cartograph.store import open_store
from cartograph.store.interfaces import Store

from benchmark.agent_ab.cli import DEFAULT_TASKS, mirrors_of
from benchmark.agent_ab.sources import DEFAULT_CACHE, Sources
from benchmark.agent_ab.tasks import Task, load_tasks
from benchmark.report import run_facts, write_report

SEARCH_LIMIT = 10
FALLBACK_WORDS = 5
MAX_FILE_BYTES = 1 << 20
COMMON_TEXT = """about above after again also always another because been before being below between
    both cannot could does doing down during each either else even every from have having
    here into itself just like more most much must never none only other over same should
    since some such than that their them then there these they this those though through
    under until upon very want what when where whether which while will with within without
    would your yours instead still work works worked using used uses file files code error
    errors happen happens shows shown show need needs needed fails failed instead please
    expected expect seems something prints print whenever answer function functions part
    produces output would which several lines line text help option options spans
    supposed wrong"""
COMMON_WORDS = frozenset(COMMON_TEXT.split())
DROPPED_NAMES = frozenset({"True", "False", "None", "self", "cls"})
CAMEL = re.compile(r"\b[A-Za-z]*[A-Z][a-z0-9]+[A-Z]\w*\b")
SNAKE = re.compile(r"\b[A-Za-z0-9]*[a-z0-9]_[A-Za-z0-9_]*\b|\b_[A-Za-z0-9_]+\b")
DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
CALLED = re.compile(r"\b([A-Za-z_]\w*)\((?!s\))")
UPPER = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b")
ERROR_MESSAGE = re.compile(r"[A-Za-z_.]*(?:Error|Exception|Warning): (.+)")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
BACKTICKED = re.compile(r"`([^`]+)`")


def tokens(text: str) -> int:
    """The token estimate both sides use: the one MCP's budgets use."""
    return estimate_tokens(text)


def identifiers(prompt: str) -> list[str]:
    """The grep terms of a prompt (see the module's text), in order of appearance."""
    found: list[tuple[int, str]] = []
    for match in BACKTICKED.finditer(prompt):
        code = match.group(1).strip()
        if IDENTIFIER.fullmatch(code):
            found.append((match.start(), code))
            continue
        message = ERROR_MESSAGE.match(code)
        if message:
            stretch = max(re.split(r"['\"<>()\[\]{}]", message.group(1)), key=len).strip(" ,.:")
            if len(stretch.split()) >= 3:
                found.append((match.start() + 1, stretch))
        found.extend((match.start() + start, name) for start, name in _code_words(code))
        found.extend((match.start() + m.start(), m.group()) for m in UPPER.finditer(code))
    outside = BACKTICKED.sub(lambda m: " " * len(m.group()), prompt)
    found.extend(_code_words(outside))
    terms: list[str] = []
    for _, name in sorted(found):
        term = name if " " in name else name.rsplit(".", 1)[-1]
        if (
            len(term) < 3
            or keyword.iskeyword(term)
            or term in DROPPED_NAMES
            or (term.startswith("__") and term.endswith("__"))
        ):
            continue
        if term not in terms:
            terms.append(term)
    if terms:
        return terms
    words = [w for w in re.findall(r"[A-Za-z]{4,}", prompt) if w.lower() not in COMMON_WORDS]
    return list(dict.fromkeys(w.lower() for w in words))[:FALLBACK_WORDS]


def _code_words(text: str) -> list[tuple[int, str]]:
    """(position, word) of the CamelCase, snake_case, dotted and called names in `text`."""
    words = [(m.start(), m.group()) for p in (CAMEL, SNAKE, DOTTED) for m in p.finditer(text)]
    return words + [(m.start(), m.group(1)) for m in CALLED.finditer(text)]


# ---------------------------------------------------------------------------- (b) grep


@dataclass
class GrepSide:
    terms: list[str]
    matched_files: int = 0
    files_read: list[str] = field(default_factory=list)
    list_tokens: int = 0  # the `grep -rlw` outputs
    read_tokens: int = 0
    found: dict[str, bool] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.list_tokens + self.read_tokens


def tree_texts(tree: Path) -> dict[str, str]:
    """The tree's tracked text files (git ls-files; binary and > 1 MiB files left out)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=tree, capture_output=True, check=True
    ).stdout.decode("utf-8", "replace")
    texts: dict[str, str] = {}
    for path in filter(None, listed.split("\0")):
        file = tree / path
        if not file.is_file() or file.stat().st_size > MAX_FILE_BYTES:
            continue
        data = file.read_bytes()
        if b"\0" in data:
            continue
        texts[path] = data.decode("utf-8", "replace")
    return texts


def grep_side(texts: dict[str, str], terms: list[str], expected: tuple[str, ...]) -> GrepSide:
    side = GrepSide(terms)
    matches: Counter[str] = Counter()
    for term in terms:
        pattern = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(term) + r"(?![A-Za-z0-9_])")
        listed = []
        for path, text in texts.items():
            count = len(pattern.findall(text))
            if count:
                matches[path] += count
                listed.append(path)
        side.list_tokens += tokens("".join(f"{p}\n" for p in listed))
    ranked = sorted(matches, key=lambda p: (-matches[p], p))
    side.matched_files = len(ranked)
    missing = set(expected)
    for path in ranked:
        if not missing:
            break
        side.files_read.append(path)
        side.read_tokens += tokens(texts[path])
        missing.discard(path)
    side.found = {path: path not in missing for path in expected}
    return side


# ---------------------------------------------------------------------------- (a) Cartograph


@dataclass
class CartographSide:
    calls: list[dict[str, Any]] = field(default_factory=list)  # tool, argument, tokens
    found: dict[str, bool] = field(default_factory=dict)
    named: dict[str, bool] = field(default_factory=dict)
    files_pointed: list[str] = field(default_factory=list)  # files of the contexts fetched

    @property
    def tokens(self) -> int:
        return sum(call["tokens"] for call in self.calls)


class McpAnswers:
    """The catalogue's operations run as the MCP server runs them, answers rendered as it
    renders them."""

    def __init__(self, store: Store, repo: str, tree: Path) -> None:
        self.store = store
        self.repo = repo
        self.services = Services(store, cwd=str(tree))

    def ask(self, name: str, values: dict[str, Any]) -> tuple[Any, str]:
        op = operation(name)
        given = {**values, "repo": self.repo, "max_tokens": AGENT_MAX_TOKENS}
        answered = run_fitted(op, self.services, given, "mcp", "text")
        return answered.answer, answered.text


def cartograph_side(
    answers: McpAnswers, prompt: str, terms: list[str], expected: tuple[str, ...]
) -> CartographSide:
    side = CartographSide()
    missing = set(expected)
    texts: list[str] = []
    asked: set[str] = set()

    def ask(tool: str, name: str, values: dict[str, Any], argument: str) -> Any:
        answer, text = answers.ask(name, values)
        side.calls.append({"tool": tool, "argument": argument[:120], "tokens": tokens(text)})
        texts.append(text)
        return answer

    def context_of(symbol_id: str, path: str) -> None:
        if symbol_id in asked:
            return
        asked.add(symbol_id)
        ask("get_context", "context", {"symbol": symbol_id}, symbol_id)
        missing.discard(path)
        if path not in side.files_pointed:
            side.files_pointed.append(path)

    located = ask("locate", "locate", {"text": prompt}, prompt)
    for location in located.locations:
        if not missing:
            break
        context_of(location.symbol.id, location.symbol.path)
    for term in terms:
        if not missing:
            break
        result = ask("search_symbols", "search", {"query": term, "limit": SEARCH_LIMIT}, term)
        for path in sorted(missing):
            hit = next((h for h in result.hits if h.symbol.path == path), None)
            if hit is not None:
                context_of(hit.symbol.id, path)
    side.found = {path: path not in missing for path in expected}
    everything = "\n".join(texts)
    side.named = {path: path in everything for path in expected}
    return side


# ---------------------------------------------------------------------------- the run


@dataclass
class TaskResult:
    id: str
    kind: str
    repository: str
    commit: str
    expected_files: list[str]
    terms: list[str]
    cartograph_tokens: int
    cartograph_found: bool
    cartograph_named: bool
    cartograph_calls: list[dict[str, Any]]
    cartograph_files_read: list[str]
    cartograph_read_tokens: int  # the tokens of those files, read whole
    grep_tokens: int
    grep_found: bool
    grep_matched_files: int
    grep_files_read: int
    index_seconds: float


def measure_task(task: Task, sources: Sources, work: Path) -> TaskResult:
    tree = work / task.id / task.repository.name
    commit = sources.checkout(task.repository, task.commit, tree)
    store = open_store(f"sqlite:///{work / task.id / 'graph.db'}")
    started = time.perf_counter()
    index_repository(store, tree, task.repository.name, history=False)
    index_seconds = time.perf_counter() - started
    terms = identifiers(task.prompt)
    answers = McpAnswers(store, task.repository.name, tree)
    carto = cartograph_side(answers, task.prompt, terms, task.expected_files)
    texts = tree_texts(tree)
    grep = grep_side(texts, terms, task.expected_files)
    store.close()
    return TaskResult(
        id=task.id,
        kind=task.kind,
        repository=task.repository.description,
        commit=commit,
        expected_files=list(task.expected_files),
        terms=terms,
        cartograph_tokens=carto.tokens,
        cartograph_found=all(carto.found.values()),
        cartograph_named=all(carto.named.values()),
        cartograph_calls=carto.calls,
        cartograph_files_read=carto.files_pointed,
        cartograph_read_tokens=sum(tokens(texts.get(path, "")) for path in carto.files_pointed),
        grep_tokens=grep.tokens,
        grep_found=all(grep.found.values()),
        grep_matched_files=grep.matched_files,
        grep_files_read=len(grep.files_read),
        index_seconds=round(index_seconds, 2),
    )


def run_proxy(tasks: list[Task], sources: Sources) -> list[TaskResult]:
    with tempfile.TemporaryDirectory(prefix="agent-proxy-") as work:
        return [measure_task(task, sources, Path(work)) for task in tasks]


def overall(results: list[TaskResult]) -> dict[str, Any]:
    carto = [r.cartograph_tokens for r in results]
    with_reads = [r.cartograph_tokens + r.cartograph_read_tokens for r in results]
    grep = [r.grep_tokens for r in results]
    return {
        "tasks": len(results),
        "cartograph_tokens_sum": sum(carto),
        "cartograph_with_reads_tokens_sum": sum(with_reads),
        "grep_tokens_sum": sum(grep),
        "cartograph_tokens_median": statistics.median(carto) if carto else 0,
        "cartograph_with_reads_tokens_median": statistics.median(with_reads) if results else 0,
        "grep_tokens_median": statistics.median(grep) if grep else 0,
        "ratio_of_sums": _ratio(sum(grep), sum(carto)),
        "median_ratio": _median_ratio(grep, carto),
        "ratio_of_sums_with_reads": _ratio(sum(grep), sum(with_reads)),
        "median_ratio_with_reads": _median_ratio(grep, with_reads),
        "cartograph_found": sum(r.cartograph_found for r in results),
        "cartograph_named": sum(r.cartograph_named for r in results),
        "grep_found": sum(r.grep_found for r in results),
        "cartograph_cheaper": sum(r.cartograph_tokens < r.grep_tokens for r in results),
        "cartograph_with_reads_cheaper": sum(
            r.cartograph_tokens + r.cartograph_read_tokens < r.grep_tokens for r in results
        ),
    }


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 2) if denominator else None


def _median_ratio(numerators: list[int], denominators: list[int]) -> float | None:
    if not numerators or not all(denominators):
        return None
    return round(statistics.median(n / d for n, d in zip(numerators, denominators, strict=True)), 2)


def markdown(facts: dict[str, str], results: list[TaskResult], totals: dict[str, Any]) -> str:
    yes = {True: "yes", False: "**no**"}
    n = totals["tasks"]
    lines = [
        f"# Agent proxy (no model): Cartograph answers vs grep-and-read, {facts['date'][:10]}",
        "",
        f"Commit {facts['commit']}, {facts['machine']}. **A proxy, not an agent measurement**: "
        "the tokens of the text a fixed policy puts in front of an agent to reach the files "
        "each task's real fix changed, on the tasks of benchmark/agent_tasks/ "
        "(benchmark/agent_proxy.py's docstring has the policy). No model ran. Tokens = "
        "cartograph.budget.estimate_tokens on both sides.",
        "",
        "- Cartograph answers: `locate` with the prompt, then `get_context` of the located "
        "functions in rank order until every expected file had one, then `search_symbols` for "
        "the prompt's identifiers if one is still missing; the texts as the MCP tools render "
        "them.",
        "- Cartograph answers + reads: the same, plus every file those contexts were in, read "
        "whole (an agent opens the file before it answers or edits): the conservative figure.",
        "- grep + read: `grep -rlw` for each identifier of the prompt (the lists of paths "
        "counted), then the matched files read whole, most matches first, until every "
        "expected file was read (all of them when one never matches).",
        "",
        "## Overall",
        "",
        "| | Cartograph answers | Cartograph answers + reads | grep + read |",
        "|---|---:|---:|---:|",
        f"| tokens, sum | {totals['cartograph_tokens_sum']:,} | "
        f"{totals['cartograph_with_reads_tokens_sum']:,} | {totals['grep_tokens_sum']:,} |",
        f"| tokens, median per task | {totals['cartograph_tokens_median']:,.0f} | "
        f"{totals['cartograph_with_reads_tokens_median']:,.0f} | "
        f"{totals['grep_tokens_median']:,.0f} |",
        f"| grep / this, on the sums | {totals['ratio_of_sums']}x | "
        f"{totals['ratio_of_sums_with_reads']}x | |",
        f"| grep / this, median of the per-task ratios | {totals['median_ratio']}x | "
        f"{totals['median_ratio_with_reads']}x | |",
        f"| tasks where it costs less than grep + read | {totals['cartograph_cheaper']}/{n} | "
        f"{totals['cartograph_with_reads_cheaper']}/{n} | |",
        f"| tasks whose expected files were all reached | {totals['cartograph_found']}/{n} | "
        f"{totals['cartograph_found']}/{n} | {totals['grep_found']}/{n} |",
        "",
        f"Every expected file was named (its path in an answer's text) on "
        f"{totals['cartograph_named']} of {n} tasks.",
        "",
        "## Per task",
        "",
        "| task | kind | expected | identifiers grepped | Cartograph answers (calls) | + reads "
        "(files) | reached | grep + read (files read / matched) | reached | grep / answers | "
        "grep / answers + reads |",
        "|---|---|---|---|---:|---:|---|---:|---|---:|---:|",
    ]
    for r in results:
        with_reads = r.cartograph_tokens + r.cartograph_read_tokens
        lines.append(
            f"| {r.id} | {r.kind} | {', '.join(r.expected_files)} | "
            f"{', '.join(r.terms) or '-'} | {r.cartograph_tokens:,} ({len(r.cartograph_calls)}) | "
            f"{with_reads:,} ({len(r.cartograph_files_read)}) | {yes[r.cartograph_found]} | "
            f"{r.grep_tokens:,} ({r.grep_files_read}/{r.grep_matched_files}) | "
            f"{yes[r.grep_found]} | {_times(r.grep_tokens, r.cartograph_tokens)} | "
            f"{_times(r.grep_tokens, with_reads)} |"
        )
    lines += [
        "",
        "Caveats: the policy stops as soon as the expected files are reached on both sides (it "
        "knows the answer; an agent does not, and may read more or stop earlier); both sides "
        "read whole files where an agent may read a range; the grep side's terms are the "
        "prompt's code-like words, which an agent may choose better or worse; the prompts "
        "were written from changelog entries and often name the function involved. What a "
        "real agent spends is measured by the A/B harness (`python -m benchmark.agent_ab`).",
    ]
    return "\n".join(lines) + "\n"


def _times(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:.1f}x" if denominator else "-"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmark.agent_proxy", description=__doc__)
    p.add_argument("--tasks", nargs="+", default=[str(DEFAULT_TASKS)])
    p.add_argument("--only", nargs="+", metavar="TASK")
    p.add_argument("--mirror", action="append", default=[], metavar="URL=GITDIR")
    p.add_argument("--mirrors", metavar="DIR")
    p.add_argument("--cache", default=str(DEFAULT_CACHE))
    p.add_argument("--no-write", action="store_true", help="print the report only")
    args = p.parse_args(argv)
    tasks = load_tasks(args.tasks)
    if args.only:
        tasks = [t for t in tasks if t.id in set(args.only)]
    sources = Sources(
        Path(args.cache), mirrors_of(args.mirror), Path(args.mirrors) if args.mirrors else None
    )
    results = run_proxy(tasks, sources)
    facts = run_facts()
    totals = overall(results)
    report = {
        **facts,
        "kind": "proxy (no model)",
        "token_rule": "cartograph.budget.estimate_tokens",
        "overall": totals,
        "tasks": [asdict(r) for r in results],
    }
    write_report("agent-proxy", report, markdown(facts, results, totals), write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
