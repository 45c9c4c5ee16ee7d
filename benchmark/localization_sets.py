"""Localization sets from real fixes: from the text about a bug, find what its fix changed.

Each task is (text describing the change, the commit before the fix, the non-test source files
the fix changed, the functions and methods the fix changed). The sets are mined from public git
histories; this docstring is the benchmark's definition.

Sources. The git histories are bare mirrors made by the session's `fetch` tool
(`fetch github:pallets/flask` and so on), one per project, at
`$CARTOGRAPH_MIRRORS/<owner>+<name>/repo` (`CARTOGRAPH_MIRRORS` defaults to `/work/.mirror`;
the PROJECTS table names each). This module fetches nothing and never writes into a mirror.
Only the history of the project's main branch is read (`main`; aiohttp's `master`, twisted's
`trunk`; pallets' `main` contains `stable` through the regular "Merge branch 'stable'" merges);
the mirrors' `refs/pull/*` are used for one lookup only (below).

Projects (twelve, of different kinds): a web framework and its toolkit (flask, werkzeug), a
template engine (jinja), a CLI library (click), a class library (attrs), an HTTP client
(urllib3), an async web framework (aiohttp), plugin-based tools (pytest, pylint, tox), a
package installer (pip, its vendored `src/pip/_vendor` left out) and a unittest-style
(trial) networking framework (twisted).

Texts.
- pallets projects (flask, werkzeug, jinja, click): the entries of the changelog as it is on
  `main` today (`CHANGES.rst`; click's `CHANGES.md`). An entry is a top-level bullet with its
  continuation lines and any nested bullets. References (`:issue:`N``, `:pr:`N``, `:ghsa:`X``,
  MyST `{issue}`N`` ...) that close a sentence or the entry (only punctuation, `and`/`or` or
  other references up to the next reference, the end, a full stop or a nested bullet, and not
  right after "by", "in", "from", "see", ...) are *trailing* and removed; the others are
  inside a sentence ("a regression from :pr:`2969` ...") and become `#2969`. Other roles become
  their text (`:meth:`~flask.Flask.run`` -> `Flask.run`, a leading `~` keeps the last dotted
  part), ``code`` and `code` lose their backticks, links keep their text. The title is the
  first sentence (split at `.`, `!` or `?` followed by white space and a capital letter or a
  quote), the text is the whole entry on one line, nested bullets included.
- the others: their towncrier fragments `<folder>/<N>.<type>[.<k>][.md|.rst|.txt]` (attrs
  `changelog.d`, pytest and urllib3 `changelog`, pylint `doc/whatsnew/fragments`, pip `news`,
  aiohttp `CHANGES`, tox `docs/changelog`, twisted `src/twisted/[<sub>/]newsfragments`), each
  read as it was in the commit that added it (they are deleted at each release; a fragment
  added again, e.g. renamed from .rst to .md or backported, counts once, the oldest); N is the
  pull request, in some projects the issue. Fragments of a type that says no code changed
  (NO_CODE_FRAGMENTS: misc, trivial, doc, contrib, packaging, vendor, process, internal ...)
  are dropped. Markdown/RST emphasis (`*x*`, `**x**`) is removed.

From an entry to its fix. A *unit* is a commit whose diff is the fix:
- a pull-request merge (a merge commit whose subject is "Merge pull request #N ..." or ends in
  "(#N)", as GitHub writes them, or whose second parent is the mirror's `refs/pull/N/head`
  unless the subject is "Merge branch/tag/commit ..."):
  before = its first parent, fix diff = first parent..merge (what the pull request changed on
  the branch it was merged into; merges of the base branch into the pull request's branch do
  not leak in, a conflict resolution would);
- a squash or direct commit: before = its parent, diff = parent..commit.
A non-merge commit on a pull request's branch is lifted to the earliest pull-request merge
that brought it in (the merge M with the commit in M^1..M^2); a commit directly on the branch
is its own unit. Candidates are tried in this order, the first unit that changes a source file
(below) wins:
1. the numbers of the entry's trailing references (pull requests first, then issues, which
   pallets sometimes use for pull requests), looked up as pull-request units by subject or
   `refs/pull/N/head`; for a fragment its N;
2. the commit that added the entry to the changelog, lifted to its unit. For each line of the
   entry, normalised (references dropped, roles to their text, backticks, bullets and white
   space removed, lower case; lines under 15 characters and lines that occur in another entry
   are skipped), the oldest non-merge commit on `main` whose diff added it; of those commits
   the oldest that is not older than the release that started the entry's version (X.Y.Z-1
   for a patch release X.Y.Z, the previous X'.Y'.0 for a feature release) minus 90 days. A
   later rewording or rewrap adds some lines again, the first appearance is the fix; the date
   floor stops a line an old entry once had from voting. For fragments, the commit that added
   the fragment;
3. commits whose message says "fixes/closes/resolves #N" for an issue N of the entry, lifted.
Inline references (not trailing) are never used for the lookup.

Keeping a task. Source files are `.py` files under the project's package roots (PROJECTS:
`src/flask`, ...) that are not tests (`tests/`, `test_*.py`, `*_test.py`, `conftest.py`);
paths before the move to `src/` do not count, so older fixes drop out. The fix must change at
least one and at most 5 source files (added and deleted ones counted), at least one changed
function or method must exist in the before tree, and the text must have at least 4 words.
Entries that only state supported Python versions or dependency bumps, or are just "Remove
previously deprecated code." (BOILERPLATE) are dropped: their functions are real changes but
the text cannot point at them. Entries whose unit is the same commit are merged into one task
(distinct texts joined in changelog order, newest section first; the title of the first);
entries of several releases with the same text are one entry. The sets are capped at
MAX_TASKS: entries whose text matches FIX_WORDS (fix, bug, error, no longer, does not, ...)
are preferred, then the most recent. The id is `<project>-<N>` with N the pull request of the
unit's subject, else the entry's first reference, else the short commit.

Ground truth. `files` are the before-version paths of the changed source files that existed
before (`git diff -M -U0 before fix`). Each before file is parsed with `ast`; every function and
method gets a qualified name (`Flask.wsgi_app`, `Request.get_json`, nested as `outer.inner`,
classes in classes as `Outer.Inner.method`) and a line range from its first decorator to
`end_lineno`. A changed line of the diff is a removed line (its old number) or an insertion
point (an insertion after old line L lands in a function when L and L+1 are both in its range,
or when L is its last line and the first non-blank inserted line is indented deeper than its
`def`). Each changed line is given to the innermost function containing it only (the enclosing
function or class is not added for it). Changes to docstrings, comments, annotations and
decorators count like any other line; lines in a class body outside any method give no
function. `start`/`end` are the range in the before file.

Halves. Each task is in one of two halves, fixed once for all by a hash of its id
(`half_of`): `locate`'s weights are chosen on the "tuning" half only, and every figure is
reported on the "held-out" half (`benchmark.localization --half`).

Output: `~/.cache/cartograph/localization/<project>/tasks.json`: project, repo_url, git_dir,
package_roots, branch, `stats` (entries read, dropped by reason), `mapping` (how the kept tasks were
mapped) and `tasks` with the fields of `Task` (`date` is the unit's committer date, ISO) plus
`mapping` and `fix_subject` for reading; sorted by date.

Known weaknesses: a pull request may fix more than its entry says (its other functions are
ground truth too); an entry added in a separate "changelog" commit that also touched source
maps to that commit; changelog texts are written by maintainers after the fix and often name
the changed function, which makes them easier than a user's report.

    python -m benchmark.localization_sets [--project flask,click] [--force]

`load_sets()` reads the sets, `checkout()` materialises a task's before tree incrementally and
`score()` computes file hit@1/3/5 and function hit@1/5/10. The BM25 baseline is
`benchmark.bm25`.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

CACHE = Path.home() / ".cache" / "cartograph" / "localization"
MAX_TASKS = 80
MIN_TASKS = 25
MAX_SOURCE_FILES = 5
MIN_WORDS = 4
WINDOW_SLACK = 90 * 24 * 3600  # seconds before the previous release a fix may date from
# fragment types that describe no change of the library's behaviour (an empty or
# process-only text): not tasks
NO_CODE_FRAGMENTS = frozenset(
    {"misc", "trivial", "trival", "trvial", "doc", "docs", "contrib", "packaging", "vendor",
     "process", "internal", "ignore", "minor"}
)  # fmt: skip
# an entry that reads as a bug fix (preferred when a set has more candidates than MAX_TASKS)
FIX_WORDS = re.compile(
    r"\b(fix|fixe[sd]|bug|incorrect(ly)?|correct(ly)?|wrong|error|errors|crash|fail|fails|"
    r"failed|failing|regression|no longer|instead of|broken|properly|issue|raise[sd]?|"
    r"exception|again|handle[sd]?|does not|doesn't|don't|not)\b",
    re.IGNORECASE,
)


# entries that say nothing a search could use: supported versions, dependency bumps
BOILERPLATE = re.compile(
    r"^(?:drop(?:ped)? support for python|add(?:ed)? support for python 3\.\d+\.?$|"
    r"(?:update|bump|require|raise|increase)\b[^.]*(?:\b(?:version|requirement|dependency|"
    r"dependencies|minimum)\b|>=)|minimum (?:required |supported )?version|"
    r"remove(?:d)? previously deprecated code\.?$|"
    r"(?:update|bump)[^.]*\bto (?:>=\s*)?\d+(?:\.\d+)+)",
    re.IGNORECASE,
)


def mirrors_root() -> Path:
    return Path(os.environ.get("CARTOGRAPH_MIRRORS", "/work/.mirror"))


@dataclass(frozen=True)
class Project:
    """Where a project's mirror is and how its changelog is written."""

    name: str
    repo: str  # owner/name on GitHub
    package_roots: tuple[str, ...]
    changelog: tuple[str, ...] = ()  # pallets: CHANGES file names, the first that exists at HEAD
    fragments: tuple[str, ...] = ()  # towncrier fragment folders (attrs, pytest, pip, ...)
    branch: str = "main"  # the branch whose history is read
    exclude: tuple[str, ...] = ()  # folders under the roots that are not the project's code

    @property
    def git_dir(self) -> Path:
        return mirrors_root() / self.repo.replace("/", "+") / "repo"

    @property
    def repo_url(self) -> str:
        return f"github:{self.repo}"


PROJECTS: dict[str, Project] = {
    p.name: p
    for p in (
        Project("flask", "pallets/flask", ("src/flask",), changelog=("CHANGES.rst",)),
        Project("werkzeug", "pallets/werkzeug", ("src/werkzeug",), changelog=("CHANGES.rst",)),
        Project("jinja", "pallets/jinja", ("src/jinja2",), changelog=("CHANGES.rst",)),
        Project("click", "pallets/click", ("src/click",), changelog=("CHANGES.md", "CHANGES.rst")),
        Project(
            "attrs", "python-attrs/attrs", ("src/attr", "src/attrs"), fragments=("changelog.d",)
        ),
        Project(
            "pytest", "pytest-dev/pytest", ("src/_pytest", "src/pytest"), fragments=("changelog",)
        ),
        Project("pylint", "pylint-dev/pylint", ("pylint",), fragments=("doc/whatsnew/fragments",)),
        Project("pip", "pypa/pip", ("src/pip",), fragments=("news",), exclude=("src/pip/_vendor",)),
        Project("urllib3", "urllib3/urllib3", ("src/urllib3",), fragments=("changelog",)),
        Project(
            "aiohttp", "aio-libs/aiohttp", ("aiohttp",), fragments=("CHANGES",), branch="master"
        ),
        Project(
            "twisted",
            "twisted/twisted",
            ("src/twisted",),
            fragments=tuple(
                f"src/twisted/{sub}newsfragments"
                for sub in ("", "conch/", "mail/", "names/", "pair/", "web/", "words/")
            ),
            branch="trunk",
        ),
        Project("tox", "tox-dev/tox", ("src/tox",), fragments=("docs/changelog",)),
    )
}


# --- the data -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Function:
    path: str
    qualname: str
    start: int
    end: int


@dataclass
class Task:
    id: str
    title: str
    text: str
    before: str
    fix: str
    files: list[str]
    functions: list[Function]
    date: str = ""


@dataclass
class LocalizationSet:
    project: str
    git_dir: Path
    package_roots: list[str]
    tasks: list[Task]
    branch: str = "main"


HALVES = ("tuning", "held-out")


def half_of(task_id: str) -> str:
    """The half a task is in, fixed once for all by a hash of its id: weights are chosen on
    the "tuning" half only, and every figure is reported on the "held-out" half."""
    return HALVES[hashlib.blake2b(task_id.encode(), digest_size=8).digest()[0] & 1]


def tasks_path(project: str) -> Path:
    return CACHE / project / "tasks.json"


def load_sets(names: Iterable[str] | None = None, half: str | None = None) -> list[LocalizationSet]:
    """The built sets (all of PROJECTS that have a tasks.json when `names` is None; none built
    is an error), with the tasks of one half only when `half` is given."""
    wanted = list(names) if names is not None else list(PROJECTS)
    sets: list[LocalizationSet] = []
    for name in wanted:
        path = tasks_path(name)
        if not path.exists():
            if names is not None:
                raise FileNotFoundError(f"{path}: run python -m benchmark.localization_sets")
            continue
        data = json.loads(path.read_text())
        tasks = [
            Task(
                id=t["id"],
                title=t["title"],
                text=t["text"],
                before=t["before"],
                fix=t["fix"],
                files=list(t["files"]),
                functions=[Function(**f) for f in t["functions"]],
                date=t.get("date", ""),
            )
            for t in data["tasks"]
            if half is None or half_of(t["id"]) == half
        ]
        sets.append(
            LocalizationSet(
                data["project"],
                Path(data["git_dir"]),
                data["package_roots"],
                tasks,
                data.get("branch", "main"),
            )
        )
    if not sets:  # never an empty report that reads as a run
        raise FileNotFoundError(
            f"no set is built under {CACHE}: run python -m benchmark.localization_sets"
        )
    return sets


def default_tree(project: str) -> Path:
    return CACHE / project / "tree"


CLONE = ("git", "clone", "--quiet", "--shared", "--no-checkout", "--no-tags", "--single-branch")
CHECKOUT = ("checkout", "--quiet", "--force", "--detach")


def checkout(lset: LocalizationSet, task: Task, work_tree: Path | None = None) -> Path:
    """Put `task.before` in `work_tree` (default: the set's persistent tree in the cache).

    The tree is a `git clone --shared --no-checkout` of the mirror (objects are read through
    `objects/info/alternates`; the mirror is never written). Moving to another commit is
    `git checkout --force --detach`, which rewrites only the files that differ (unchanged files
    keep their bytes and mtime, so an incremental indexer re-parses only the changed ones),
    then `git clean -ffd` removes untracked files except the `.cartograph` folder an indexer
    may keep in the tree (ignored files are kept too).
    """
    tree = work_tree if work_tree is not None else default_tree(lset.project)
    if not (tree / ".git").exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        if tree.exists() and any(tree.iterdir()):
            raise FileExistsError(f"{tree} exists and is not a git work tree")
        subprocess.run(
            [*CLONE, "--branch", lset.branch, str(lset.git_dir), str(tree)],
            check=True,
        )
    subprocess.run(
        ["git", "-C", str(tree), "-c", "advice.detachedHead=false", *CHECKOUT, task.before],
        check=True,
    )
    subprocess.run(
        ["git", "-C", str(tree), "clean", "-ffdq", "-e", ".cartograph"],
        check=True,
    )
    return tree


# --- scoring --------------------------------------------------------------------------------


@dataclass
class TaskResult:
    """A ranking for one task: predicted files and (path, qualname) functions, best first."""

    task: Task
    files: list[str]
    functions: list[tuple[str, str]]


FILE_KS = (1, 3, 5)
FUNCTION_KS = (1, 5, 10)


def function_matches(predicted: tuple[str, str], truth: Function) -> bool:
    path, qualname = predicted
    if path != truth.path:
        return False
    return qualname == truth.qualname or qualname.endswith("." + truth.qualname)


def score(tasks_results: Sequence[TaskResult]) -> dict[str, float]:
    """File hit@1/3/5 and function hit@1/5/10 (fractions of the tasks), plus `n`.

    A hit at k: any ground-truth file (function) among the first k predictions; a predicted
    qualname matches when equal or when it ends with "." + the true qualname.
    """
    n = len(tasks_results)
    out: dict[str, float] = {"n": float(n)}
    for k in FILE_KS:
        hits = sum(any(f in r.task.files for f in r.files[:k]) for r in tasks_results)
        out[f"file@{k}"] = hits / n if n else 0.0
    for k in FUNCTION_KS:
        hits = sum(
            any(function_matches(p, t) for p in r.functions[:k] for t in r.task.functions)
            for r in tasks_results
        )
        out[f"function@{k}"] = hits / n if n else 0.0
    return out


# --- git ------------------------------------------------------------------------------------


class Git:
    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["git", f"--git-dir={self.git_dir}", *args],
            capture_output=True,
            check=True,
        )
        return done.stdout.decode("utf-8", errors="replace")

    def show(self, commit: str, path: str) -> str | None:
        done = subprocess.run(
            ["git", f"--git-dir={self.git_dir}", "show", f"{commit}:{path}"],
            capture_output=True,
        )
        if done.returncode != 0:
            return None
        return done.stdout.decode("utf-8", errors="replace")


@dataclass
class Commit:
    sha: str
    parents: list[str]
    time: int
    subject: str
    body: str


_PR_SUBJECT = re.compile(r"^Merge pull request #(\d+)\b|\(#(\d+)\)\s*$")
_BRANCH_MERGE = re.compile(r"^Merge (?:remote-tracking )?(?:branch|tag|commit)\b")
_FIXES = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s*#(\d+)\b", re.I)


class History:
    """The commits of `main`, indexed by the pull-request and issue numbers they name."""

    def __init__(self, git: Git, branch: str) -> None:
        self.git = git
        self.commits: dict[str, Commit] = {}
        self.by_pr: dict[int, list[str]] = defaultdict(list)  # PR units named by subject
        self.fixes: dict[int, list[str]] = defaultdict(list)
        raw = git.run("log", branch, "--format=%H%x00%P%x00%ct%x00%s%x00%b%x1e")
        for record in raw.split("\x1e"):
            record = record.strip("\n")
            if not record:
                continue
            sha, parents, ct, subject, body = record.split("\x00", 4)
            c = Commit(sha, parents.split(), int(ct), subject, body)
            self.commits[sha] = c
            m = _PR_SUBJECT.search(subject)
            if m:
                self.by_pr[int(m.group(1) or m.group(2))].append(sha)
            for f in _FIXES.finditer(subject + "\n" + body):
                self.fixes[int(f.group(1))].append(sha)
        # merges whose second parent is a pull request's head
        heads: dict[str, int] = {}
        for line in git.run("for-each-ref", "--format=%(objectname) %(refname)", "refs/pull").split(
            "\n"
        ):
            m = re.match(r"([0-9a-f]{40}) refs/pull/(\d+)/head$", line)
            if m:
                heads[m.group(1)] = int(m.group(2))
        for c in self.commits.values():
            if _BRANCH_MERGE.match(c.subject):  # a branch merged locally, not a pull request
                continue
            if len(c.parents) == 2 and c.parents[1] in heads:
                number = heads[c.parents[1]]
                if c.sha not in self.by_pr[number]:
                    self.by_pr[number].append(c.sha)
        for shas in self.by_pr.values():
            shas.sort(key=lambda s: self.commits[s].time)
        self._introduced: dict[str, str] | None = None

    def is_pr_unit(self, sha: str) -> bool:
        c = self.commits[sha]
        return bool(_PR_SUBJECT.search(c.subject)) or (
            len(c.parents) == 2 and any(sha in v for v in self.by_pr.values())
        )

    def introduced(self) -> dict[str, str]:
        """commit -> the earliest pull-request merge that brought it in (M^1..M^2)."""
        if self._introduced is None:
            out: dict[str, str] = {}
            merges = sorted(
                {
                    s
                    for shas in self.by_pr.values()
                    for s in shas
                    if len(self.commits[s].parents) == 2
                },
                key=lambda s: self.commits[s].time,
            )
            for m in merges:
                p1, p2 = self.commits[m].parents
                for sha in self.git.run("rev-list", f"{p1}..{p2}").split():
                    out.setdefault(sha, m)
            self._introduced = out
        return self._introduced

    def unit(self, sha: str) -> str:
        if sha not in self.commits:
            return sha
        if self.is_pr_unit(sha):
            return sha
        return self.introduced().get(sha, sha)

    def before(self, unit: str) -> str:
        return self.commits[unit].parents[0]


# --- changelog entries ----------------------------------------------------------------------

_REF = re.compile(r"(?::(issue|pr|ghsa|user|cve):`([^`]*)`|\{(issue|pr|ghsa|user|cve)\}`([^`]*)`)")
_ROLE_RST = re.compile(r":(?:py:)?[a-z]+:`([^`]*)`")
_ROLE_MD = re.compile(r"\{(?:py:)?[a-z]+\}`([^`]*)`")
_RST_LINK = re.compile(r"`([^`<]+?)\s*<[^>]+>`_+")
_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
_EMPHASIS = re.compile(r"(?<![\w*`])\*{1,2}(\w(?:[^*`]*?\w)?)\*{1,2}(?![\w*])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


@dataclass
class Ref:
    kind: str  # issue, pr, ghsa, ...
    value: str
    trailing: bool


@dataclass
class Entry:
    version: str
    raw: str  # the bullet's lines, bullet and indentation included
    refs: list[Ref]
    title: str
    text: str
    order: int  # position in the changelog (0 = newest)
    section: int = 0  # index of the version's section (0 = newest)

    def numbers(self, *, trailing_only: bool = True) -> list[tuple[str, int]]:
        refs = [r for r in self.refs if r.trailing] if trailing_only else self.refs
        if trailing_only and not refs:
            refs = self.refs
        out: list[tuple[str, int]] = []
        for kind in ("pr", "issue"):
            for r in reversed(refs):  # the last reference is most often the fix
                if r.kind == kind and r.value.isdigit() and (kind, int(r.value)) not in out:
                    out.append((kind, int(r.value)))
        return out


def _role_text(m: re.Match[str]) -> str:
    inner = m.group(1)
    if m.group(0).lstrip(":{").startswith("pep"):
        return f"PEP {inner}"
    inner = re.sub(r"\s*<[^>]+>$", "", inner)  # :func:`text <target>`
    if inner.startswith("~"):
        inner = inner[1:].rsplit(".", 1)[-1]
    return inner.lstrip("!")


_INLINE_BEFORE = re.compile(
    r"\b(by|in|from|of|see|with|after|since|when|to|than|like|via|as|on|for|until)\s*\(?$",
    re.IGNORECASE,
)


def _is_trailing(before: str, between: str) -> bool:
    """A reference that closes a sentence or the entry (not one a sentence speaks about)."""
    if _INLINE_BEFORE.search(before):
        return False
    return bool(
        re.fullmatch(r"[\s.,;:()]*(?:(?:and|or)\s*)?", between)  # up to the next ref or the end
        or re.match(r"[\s,;)]*[.!?]\s", between)  # ends a sentence
        or re.match(r"[\s.,;]*\n\s*[-*]\s", between)  # a nested bullet follows
    )


def plain_text(raw: str) -> tuple[str, list[Ref]]:
    """The entry as prose, one line: references dropped or `#N`, markup removed."""
    body = re.sub(r"^\s*[-*]\s+", "", raw)
    matches = list(_REF.finditer(body))
    refs: list[Ref] = []
    pieces: list[str] = []
    last = 0
    for i, m in enumerate(matches):
        kind = m.group(1) or m.group(3)
        value = (m.group(2) or m.group(4)).strip()
        nxt = matches[i + 1].start() if i + 1 < len(matches) else len(body)
        trailing = _is_trailing(body[: m.start()], body[m.end() : nxt])
        refs.append(Ref(kind, value, trailing))
        pieces.append(body[last : m.start()])
        if not trailing and kind in ("issue", "pr"):
            pieces.append(f"#{value}")
        elif not trailing:
            pieces.append(value)
        else:
            pieces.append("\x01")  # removed: spaces before it go if punctuation follows
        last = m.end()
    pieces.append(body[last:])
    text = "".join(pieces)
    text = re.sub(r"\n\s*[-*]\s+", "\n", text)  # nested bullets
    text = _RST_LINK.sub(r"\1", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _ROLE_RST.sub(_role_text, text)
    text = _ROLE_MD.sub(_role_text, text)
    text = _EMPHASIS.sub(r"\1", text)
    text = text.replace("``", "").replace("`", "")
    text = re.sub(r"([.,;:!?])\s*\x01\s*[.,;:](?!\.)", r"\1", text)
    text = re.sub(r"\s*\x01\s*(?=[.,;:)]|\x01|$)", "", text)
    text = re.sub(r"([.,;:])(?:\s*[,;:])+", r"\1", text)
    text = text.replace("\x01", " ")
    text = re.sub(r"\s+", " ", text).strip(" ,;:")
    return text, refs


def title_of(text: str) -> str:
    return _SENTENCE_END.split(text, maxsplit=1)[0].strip()


def parse_changelog(source: str) -> tuple[list[Entry], list[int | None]]:
    """Top-level bullets of a pallets CHANGES.rst / CHANGES.md, newest first, and the release
    time of each version section (None: unreleased or not given)."""
    lines = source.splitlines()
    entries: list[Entry] = []
    released: list[int | None] = []
    version = ""
    current: list[str] = []

    def flush() -> None:
        if current:
            raw = "\n".join(current).rstrip()
            text, refs = plain_text(raw)
            section = max(len(released) - 1, 0)
            entries.append(Entry(version, raw, refs, title_of(text), text, len(entries), section))
            current.clear()

    for i, line in enumerate(lines):
        header = re.match(r"^(?:#+\s*)?Version\s+(\S+)", line)
        underline = i + 1 < len(lines) and re.match(r"^[-=~]{3,}\s*$", lines[i + 1])
        if header and (line.startswith("#") or underline):
            flush()
            version = header.group(1)
            released.append(None)
            continue
        date = re.match(r"^Released\s+(?:on\s+)?(\d{4}-\d{2}-\d{2})", line)
        if date and released and released[-1] is None:
            when = datetime.fromisoformat(date.group(1)).replace(tzinfo=UTC)
            released[-1] = int(when.timestamp())
            continue
        if re.match(r"^[-*]\s+\S", line):
            flush()
            current.append(line)
        elif current and (line.startswith((" ", "\t")) or not line.strip()):
            current.append(line)
        else:
            flush()
    flush()
    return entries, released


def _section_versions(entries: list[Entry], sections: int) -> list[str]:
    names = [""] * sections
    for e in entries:
        names[e.section] = e.version
    return names


def _version(text: str) -> tuple[int, int, int] | None:
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?$", text.strip().rstrip(":"))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def previous_release(version: str, released: dict[str, int | None]) -> int | None:
    """When the development of `version` started: the release of the previous patch version
    (X.Y.Z-1) for a patch release, of the previous feature release (X'.Y'.0) for a feature
    release; maintenance releases of older lines published meanwhile do not count."""
    v = _version(version)
    if v is None:
        return None
    known = [(pv, t) for name, t in released.items() if t is not None and (pv := _version(name))]
    if v[2] > 0:
        older = [(pv, t) for pv, t in known if pv[:2] == v[:2] and pv < v]
    else:
        older = [(pv, t) for pv, t in known if pv[2] == 0 and pv < v]
    return max(older)[1] if older else None


def normalise_line(line: str) -> str:
    line = _REF.sub("", line)  # references are often added to a line later
    line = _ROLE_RST.sub(lambda m: m.group(1), line)
    line = _ROLE_MD.sub(lambda m: m.group(1), line)
    line = re.sub(r"^\s*[-*]\s+", "", line)
    line = line.replace("`", "")
    return re.sub(r"\s+", " ", line).strip().lower()


def line_adders(git: Git, paths: Sequence[str], branch: str) -> dict[str, str]:
    """Normalised changelog line -> the oldest non-merge commit on `main` that added it."""
    raw = git.run("log", branch, "--no-renames", "-U0", "--format=%x00%H", "-p", "--", *paths)
    out: dict[str, str] = {}
    sha = ""
    for line in raw.split("\n"):
        if line.startswith("\x00"):
            sha = line[1:].strip()
        elif line.startswith("+") and not line.startswith("+++"):
            key = normalise_line(line[1:])
            if len(key) >= 15:
                out[key] = sha  # log is newest first: the last write is the oldest commit
    return out


# --- diffs and functions --------------------------------------------------------------------


@dataclass
class FileChange:
    old: str | None  # None: added
    new: str | None  # None: deleted
    removed: list[int] = field(default_factory=list)  # old line numbers
    inserted: list[tuple[int, str]] = field(default_factory=list)  # (after old line, first line)


def parse_diff(raw: str) -> list[FileChange]:
    changes: list[FileChange] = []
    cur: FileChange | None = None
    pending_insert: int | None = None
    for line in raw.split("\n"):
        if line.startswith("diff --git "):
            cur = FileChange(None, None)
            changes.append(cur)
            pending_insert = None
        elif cur is None:
            continue
        elif line.startswith("--- "):
            cur.old = None if line == "--- /dev/null" else line[6:]
        elif line.startswith("+++ "):
            cur.new = None if line == "+++ /dev/null" else line[6:]
        elif line.startswith("@@"):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            if not m:
                continue
            start, count = int(m.group(1)), int(m.group(2) or "1")
            if count:
                cur.removed.extend(range(start, start + count))
                pending_insert = None
            else:
                pending_insert = start
        elif line.startswith("+") and pending_insert is not None and line[1:].strip():
            cur.inserted.append((pending_insert, line[1:]))
            pending_insert = None
    return changes


@dataclass
class Def:
    qualname: str
    start: int
    end: int
    col: int
    depth: int


def functions_of(source: str) -> list[Def]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[Def] = []

    def walk(node: ast.AST, prefix: str, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = f"{prefix}{child.name}"
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                end = child.end_lineno or child.lineno
                out.append(Def(qualname, start, end, child.col_offset, depth))
                walk(child, qualname + ".", depth + 1)
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.", depth + 1)
            else:
                walk(child, prefix, depth)

    walk(tree, "", 0)
    return out


def changed_functions(source: str, change: FileChange) -> list[Def]:
    defs = functions_of(source)

    def innermost(candidates: list[Def]) -> Def | None:
        return max(candidates, key=lambda d: (d.depth, d.start), default=None)

    hit: dict[str, Def] = {}
    for line in change.removed:
        d = innermost([d for d in defs if d.start <= line <= d.end])
        if d:
            hit[d.qualname] = d
    for after, first in change.inserted:
        indent = len(first) - len(first.lstrip())
        inside = [
            d
            for d in defs
            if (d.start <= after and after + 1 <= d.end) or (d.end == after and indent > d.col)
        ]
        d = innermost(inside)
        if d:
            hit[d.qualname] = d
    return sorted(hit.values(), key=lambda d: d.start)


def is_source(path: str, roots: Sequence[str], exclude: Sequence[str] = ()) -> bool:
    if not path.endswith(".py"):
        return False
    if not any(path.startswith(root.rstrip("/") + "/") for root in roots):
        return False
    if any(path.startswith(folder.rstrip("/") + "/") for folder in exclude):
        return False
    parts = path.split("/")
    name = parts[-1]
    if any(p in ("tests", "test") for p in parts[:-1]):
        return False
    return not (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


@dataclass
class Fix:
    before: str
    fix: str
    files: list[str]
    functions: list[Function]
    source_files: int  # changed source files, added and deleted ones included


def analyse(
    git: Git, before: str, fix: str, roots: Sequence[str], exclude: Sequence[str] = ()
) -> Fix:
    raw = git.run("diff", "-M", "-U0", "--no-color", "--no-ext-diff", before, fix, "--", *roots)
    files: list[str] = []
    functions: list[Function] = []
    count = 0
    for change in parse_diff(raw):
        path = change.old or change.new
        if path is None or not (
            is_source(path, roots, exclude)
            or (change.new is not None and is_source(change.new, roots, exclude))
        ):
            continue
        count += 1
        if change.old is None or not is_source(change.old, roots, exclude):
            continue
        files.append(change.old)
        source = git.show(before, change.old)
        if source is None:
            continue
        for d in changed_functions(source, change):
            functions.append(Function(change.old, d.qualname, d.start, d.end))
    return Fix(before, fix, files, functions, count)


# --- building -------------------------------------------------------------------------------


@dataclass
class Candidate:
    key: int  # changelog order (or fragment order) for joining texts
    title: str
    text: str
    numbers: list[tuple[str, int]]
    issues: list[int]
    added_by: str | None  # the commit that added the text
    number: str  # for the id


class Builder:
    def __init__(self, project: Project) -> None:
        self.project = project
        self.git = Git(project.git_dir)
        if not project.git_dir.exists():
            raise FileNotFoundError(
                f"{project.git_dir}: no mirror; run the fetch tool for {project.repo_url} "
                "(or set CARTOGRAPH_MIRRORS)"
            )
        self.history = History(self.git, project.branch)
        self.stats: Counter[str] = Counter()
        self.mapping: Counter[str] = Counter()
        self._fixes: dict[str, Fix] = {}

    # the texts

    def candidates(self) -> list[Candidate]:
        if self.project.fragments:
            return self.fragment_candidates()
        return self.changelog_candidates()

    def changelog_candidates(self) -> list[Candidate]:
        branch = self.project.branch
        name = next(
            (n for n in self.project.changelog if self.git.show(branch, n) is not None), None
        )
        if name is None:
            raise FileNotFoundError(f"no changelog {self.project.changelog} on {branch}")
        entries, released = parse_changelog(self.git.show(branch, name) or "")
        versions = dict(zip(_section_versions(entries, len(released)), released, strict=True))
        adders = line_adders(self.git, self.project.changelog, branch)
        # lines that occur in several entries say nothing about which commit added an entry
        distinct = {e.text: e for e in reversed(entries)}.values()  # a repeated entry once
        shared = Counter(
            key for e in distinct for key in {normalise_line(line) for line in e.raw.split("\n")}
        )
        out: list[Candidate] = []
        seen: set[str] = set()
        for e in entries:
            self.stats["entries"] += 1
            if e.text in seen:
                self.stats["dropped: same text in several releases"] += 1
                continue
            seen.add(e.text)
            voters = {
                adders[key]
                for key in (normalise_line(line) for line in e.raw.split("\n"))
                if len(key) >= 15 and key in adders and shared[key] == 1
            }
            # not older than the release before the entry's version (minus a slack for
            # work that waited for a release): an old line reused by a later entry is no vote
            floor = previous_release(e.version, versions)
            floor = floor - WINDOW_SLACK if floor is not None else None
            commits = self.history.commits
            added_by = min(
                (s for s in voters if s in commits and (floor is None or commits[s].time >= floor)),
                key=lambda s: commits[s].time,
                default=None,
            )
            numbers = e.numbers()
            issues = [n for kind, n in e.numbers(trailing_only=False) if kind == "issue"]
            number = str(numbers[0][1]) if numbers else ""
            out.append(Candidate(e.order, e.title, e.text, numbers, issues, added_by, number))
        return out

    def fragment_candidates(self) -> list[Candidate]:
        folders = "|".join(re.escape(folder) for folder in self.project.fragments)
        name = re.compile(rf"(?:{folders})/(\d+)\.([a-z_]+)(?:\.\d+)?(?:\.(?:md|rst|txt))?$")
        raw = self.git.run(
            "log", self.project.branch, "--reverse", "--diff-filter=A", "--no-renames",
            "--format=%x00%H", "--name-only", "--", *(f"{f}/" for f in self.project.fragments),
        )  # fmt: skip
        out: list[Candidate] = []
        seen: set[tuple[str, str]] = set()
        sha = ""
        for line in raw.split("\n"):
            if line.startswith("\x00"):
                sha = line[1:].strip()
                continue
            m = name.match(line.strip())
            if not m:
                continue
            self.stats["entries"] += 1
            if m.group(2) in NO_CODE_FRAGMENTS:
                self.stats["dropped: fragment type says no code changed (misc, doc, ...)"] += 1
                continue
            if (m.group(1), m.group(2)) in seen:  # re-added (renamed, .rst -> .md): the oldest
                self.stats["dropped: fragment added again"] += 1
                continue
            seen.add((m.group(1), m.group(2)))
            content = self.git.show(sha, line.strip()) or ""
            text, _ = plain_text(content.strip())
            number = int(m.group(1))
            out.append(
                Candidate(
                    -self.history.commits[sha].time if sha in self.history.commits else 0,
                    title_of(text),
                    text,
                    [("pr", number)],
                    [],
                    sha,
                    str(number),
                )
            )
        return out

    # the fixes

    def fix_of(self, unit: str) -> Fix:
        if unit not in self._fixes:
            self._fixes[unit] = analyse(
                self.git,
                self.history.before(unit),
                unit,
                self.project.package_roots,
                self.project.exclude,
            )
        return self._fixes[unit]

    def units(self, c: Candidate) -> Iterable[tuple[str, str]]:
        h = self.history
        for kind, n in c.numbers:
            for sha in h.by_pr.get(n, []):
                yield f"{kind} number", sha
        if c.added_by and c.added_by in h.commits:
            yield "changelog commit", h.unit(c.added_by)
        for n in c.issues:
            for sha in h.fixes.get(n, []):
                yield "fixes #N", h.unit(sha)

    def resolve(self, c: Candidate) -> tuple[str, Fix] | None:
        """The first unit that changes a source file, or None (the reason is counted)."""
        tried = False
        layout = False
        for how, unit in self.units(c):
            if unit not in self.history.commits or not self.history.commits[unit].parents:
                continue
            tried = True
            fix = self.fix_of(unit)
            if fix.source_files:
                return how, fix
            layout = layout or self.has_roots(fix.before)
        if not tried:
            self.stats["dropped: no commit found"] += 1
        elif not layout:
            self.stats["dropped: fix before the package roots existed (src/ layout)"] += 1
        else:
            self.stats["dropped: fix changes no source file"] += 1
        return None

    def has_roots(self, commit: str) -> bool:
        out = self.git.run(
            "ls-tree", "-d", "--name-only", commit, "--", *self.project.package_roots
        )
        return bool(out.strip())

    def build(self) -> dict[str, object]:
        chosen: dict[str, tuple[list[Candidate], Fix, str]] = {}
        for c in self.candidates():
            if len(c.text.split()) < MIN_WORDS:
                self.stats["dropped: text too short"] += 1
                continue
            if BOILERPLATE.search(c.text):
                self.stats["dropped: version support or dependency bump"] += 1
                continue
            found = self.resolve(c)
            if found is None:
                continue
            how, fix = found
            if fix.source_files > MAX_SOURCE_FILES:
                self.stats[f"dropped: more than {MAX_SOURCE_FILES} source files"] += 1
                continue
            if not fix.functions:
                self.stats["dropped: no changed function existed before"] += 1
                continue
            if fix.fix in chosen:
                self.stats["merged: same fix as another entry"] += 1
                chosen[fix.fix][0].append(c)
                continue
            self.mapping[how] += 1
            chosen[fix.fix] = ([c], fix, how)
        tasks: list[dict[str, object]] = []
        used_ids: set[str] = set()
        for sha, (cands, fix, how) in chosen.items():
            cands.sort(key=lambda c: c.key)
            pr = _PR_SUBJECT.search(self.history.commits[sha].subject)
            number = (pr.group(1) or pr.group(2)) if pr else cands[0].number or sha[:8]
            tid = f"{self.project.name}-{number}"
            if tid in used_ids:
                tid = f"{tid}-{sha[:7]}"
            used_ids.add(tid)
            text = " ".join(dict.fromkeys(c.text for c in cands))
            when = datetime.fromtimestamp(self.history.commits[sha].time, UTC)
            tasks.append(
                {
                    "id": tid,
                    "title": cands[0].title,
                    "text": text,
                    "before": fix.before,
                    "fix": fix.fix,
                    "files": fix.files,
                    "functions": [asdict(f) for f in fix.functions],
                    "date": when.isoformat(),
                    "mapping": how,
                    "fix_subject": self.history.commits[sha].subject,
                }
            )
        kept = select(tasks)
        self.stats[f"dropped: over the cap of {MAX_TASKS}"] += len(tasks) - len(kept)
        kept.sort(key=lambda t: str(t["date"]))
        mapping = Counter(str(t["mapping"]) for t in kept)
        return {
            "project": self.project.name,
            "repo_url": self.project.repo_url,
            "git_dir": str(self.project.git_dir),
            "package_roots": list(self.project.package_roots),
            "branch": self.project.branch,
            "built": datetime.now(UTC).isoformat(timespec="seconds"),
            "stats": dict(sorted(self.stats.items())),
            "mapping": dict(sorted(mapping.items())),
            "tasks": kept,
        }


def select(tasks: list[dict[str, object]]) -> list[dict[str, object]]:
    """At most MAX_TASKS: bug-fix-like texts first, then the most recent."""
    if len(tasks) <= MAX_TASKS:
        return list(tasks)
    ranked = sorted(
        tasks,
        key=lambda t: (not FIX_WORDS.search(str(t["text"])), _neg(str(t["date"]))),
    )
    return ranked[:MAX_TASKS]


def _neg(date: str) -> float:
    return -datetime.fromisoformat(date).timestamp()


def build_project(name: str, *, force: bool = False) -> Path:
    path = tasks_path(name)
    if path.exists() and not force:
        return path
    data = Builder(PROJECTS[name]).build()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--project", default=",".join(PROJECTS), help="comma-separated names")
    parser.add_argument("--force", action="store_true", help="rebuild existing sets")
    args = parser.parse_args(argv)
    for name in [n.strip() for n in args.project.split(",") if n.strip()]:
        if name not in PROJECTS:
            parser.error(f"unknown project {name!r} (known: {', '.join(PROJECTS)})")
        path = build_project(name, force=args.force)
        data = json.loads(path.read_text())
        tasks = data["tasks"]
        span = f"{tasks[0]['date'][:10]}..{tasks[-1]['date'][:10]}" if tasks else "-"
        warn = f"  (fewer than {MIN_TASKS})" if len(tasks) < MIN_TASKS else ""
        print(f"{name}: {len(tasks)} tasks {span}{warn} -> {path}")
        for reason, count in data.get("stats", {}).items():
            print(f"    {reason}: {count}")
        print(f"    kept, mapped by: {data.get('mapping', {})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
