"""History mining on a long, generated history: a real source tree replayed as many commits.

The history is written with `git fast-import` (seconds, not minutes) and is shaped like a real
one: the tree arrives over the first tenth of the commits, then most commits change 1-4 files of
one folder (folders have favourite authors, a few folders are hot), with hunks that insert,
rewrite and delete lines inside the files; every 97th commit comes from a side branch and is
merged, every 250th renames a file, every 1000th is a sweeping change of 150 files (past the
co-change cap), a bot commits now and then and a `.mailmap` folds a few authors' second
addresses.

For each size it measures, in a fresh interpreter: mining from scratch into SQLite (commits/s,
peak memory of Python and of the git it reads from), then re-mining after 100 more commits
(only those are read), and the history queries (history, co_changes, owners, explain) p50/p95
on random files and symbols. With `--neo4j` the same is done on a real Neo4j 5.26 server.

    python -m benchmark.history [--corpus django] [--commits 2000,10000] [--neo4j]

Writes benchmark/results/history-<date>.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from benchmark.corpora import CORPORA, fetch
from benchmark.report import write_report
from benchmark.run import _percentile

TARGET_COMMITS_PER_SECOND = 1000.0
TEXT_SUFFIXES = (".py", ".txt", ".html", ".js", ".css")
MAX_FILE_BYTES = 300_000
PEOPLE = [(f"Developer {i:02d}", f"dev{i:02d}@example.com") for i in range(30)]
ALIASES = {i: f"Dev{i:02d}@Laptop.example.org" for i in range(0, 30, 6)}  # folded by .mailmap
BOT = ("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com")


@dataclass
class Replay:
    """The state of the generated repository while commits are written."""

    files: dict[str, list[str]]  # path -> lines (each ending in "\n")
    rng: random.Random
    out: object  # the fast-import stdin
    mark: int = 0
    head: int = 0  # mark of the main branch's last commit
    when: int = 1546300800  # 2019-01-01
    written: int = 0
    folder_authors: dict[str, list[int]] = field(default_factory=dict)

    def _data(self, payload: bytes) -> None:
        self.out.write(b"data %d\n" % len(payload))
        self.out.write(payload)
        self.out.write(b"\n")

    def commit(
        self,
        paths: list[str],
        message: str,
        author: tuple[str, str],
        *,
        branch: str = "main",
        parent: int | str | None = None,
        merge: int | None = None,
        deletes: list[str] = (),
    ) -> int:
        self.mark += 1
        self.when += self.rng.randint(600, 6 * 3600)
        name, email = author
        self.out.write(f"commit refs/heads/{branch}\nmark :{self.mark}\n".encode())
        stamp = f"{name} <{email}> {self.when} +0000\n"
        self.out.write(f"author {stamp}committer {stamp}".encode())
        self._data(message.encode())
        if parent:  # a mark of this import, or a revision already in the repository
            origin = f":{parent}" if isinstance(parent, int) else parent
            self.out.write(f"from {origin}\n".encode())
        if merge:
            self.out.write(f"merge :{merge}\n".encode())
        for path in deletes:
            self.out.write(f"D {path}\n".encode())
        for path in paths:
            self.out.write(f"M 100644 inline {path}\n".encode())
            self._data("".join(self.files[path]).encode())
        if branch == "main":
            self.head = self.mark
        self.written += 1
        return self.mark

    def author_for(self, folder: str) -> tuple[str, str]:
        if self.rng.random() < 0.02:
            return BOT
        favourites = self.folder_authors.setdefault(folder, self.rng.sample(range(len(PEOPLE)), 3))
        index = (
            self.rng.choice(favourites)
            if self.rng.random() < 0.85
            else self.rng.randrange(len(PEOPLE))
        )
        name, email = PEOPLE[index]
        if index in ALIASES and self.rng.random() < 0.3:
            email = ALIASES[index]
        return name, email

    def edit(self, path: str, serial: int) -> None:
        """One to three hunks: insert, rewrite or delete lines (comments keep Python valid)."""
        lines = self.files[path]
        comment = "#" if path.endswith(".py") else ""
        for hunk in range(self.rng.randint(1, 3)):
            action = self.rng.random()
            at = self.rng.randrange(len(lines) + 1)
            edited = [i for i, line in enumerate(lines) if line.lstrip().startswith("# edit ")]
            if action < 0.2 and edited:
                del lines[self.rng.choice(edited)]
            elif action < 0.4 and edited:
                index = self.rng.choice(edited)
                indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
                lines[index] = f"{indent}{comment} edit {serial}.{hunk} (rewritten)\n"
            else:
                neighbour = lines[at - 1] if at else ""
                indent = neighbour[: len(neighbour) - len(neighbour.lstrip())]
                count = self.rng.randint(1, 4)
                lines[at:at] = [
                    f"{indent}{comment} edit {serial}.{hunk}.{n}\n" for n in range(count)
                ]


def _tree(source: Path) -> dict[str, list[str]]:
    files: dict[str, list[str]] = {}
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.suffix not in TEXT_SUFFIXES:
            continue
        if path.stat().st_size > MAX_FILE_BYTES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if not text.endswith("\n"):
            text += "\n"
        files[path.relative_to(source).as_posix()] = text.splitlines(keepends=True)
    return files


def generate(source: Path, root: Path, commits: int, seed: int = 20261130) -> dict:
    """Write a repository at `root` whose main branch has `commits` commits (merges included)."""
    started = time.perf_counter()
    rng = random.Random(seed)
    tree = _tree(source)
    paths = list(tree)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    importer = subprocess.Popen(
        ["git", "-C", str(root), "fast-import", "--quiet", "--done"], stdin=subprocess.PIPE
    )
    replay = Replay({}, rng, importer.stdin)
    mailmap = "".join(
        f"{PEOPLE[i][0]} <{PEOPLE[i][1]}> <{alias}>\n" for i, alias in ALIASES.items()
    )
    replay.files[".mailmap"] = mailmap.splitlines(keepends=True)
    replay.commit([".mailmap"], "Add .mailmap", PEOPLE[0])

    # the tree arrives over the first tenth of the history, folder by folder
    arrival = max(1, commits // 10)
    per_commit = max(1, -(-len(paths) // arrival))
    for start in range(0, len(paths), per_commit):
        chunk = paths[start : start + per_commit]
        for path in chunk:
            replay.files[path] = list(tree[path])
        folder = chunk[0].rpartition("/")[0]
        replay.commit(chunk, f"Add {folder or 'files'}", replay.author_for(folder))

    folders: dict[str, list[str]] = {}
    for path in replay.files:
        if path != ".mailmap":
            folders.setdefault(path.rpartition("/")[0], []).append(path)
    names = sorted(folders)
    heat = [1.0 / (rank + 1) ** 0.8 for rank in range(len(names))]  # a few folders are hot
    rng.shuffle(heat)
    renames = merges = sweeps = 0
    while replay.written < commits:
        serial = replay.written
        folder = rng.choices(names, heat)[0]
        members = folders[folder]
        if serial % 1000 == 999:
            chosen = rng.sample(sorted(replay.files.keys() - {".mailmap"}), 150)
            for path in chosen:
                replay.edit(path, serial)
            replay.commit(chosen, f"Sweep: normalise {len(chosen)} files", replay.author_for(""))
            sweeps += 1
        elif serial % 250 == 249:
            old = rng.choice(members)
            stem, dot, suffix = old.rpartition(".")
            new = f"{stem}_r{serial}{dot}{suffix}"
            replay.files[new] = replay.files.pop(old)
            members[members.index(old)] = new
            replay.commit([new], f"Rename {old} to {new}", replay.author_for(folder), deletes=[old])
            renames += 1
        elif serial % 97 == 96 and len(members) > 1 and replay.written + 3 <= commits:
            side_file, main_file = rng.sample(members, 2)
            base = replay.head
            saved = list(replay.files[side_file])
            replay.edit(side_file, serial)
            side = replay.commit(
                [side_file], f"Side work on {side_file}", replay.author_for(folder),
                branch="side", parent=base,
            )  # fmt: skip
            merged_side = replay.files[side_file]
            replay.files[side_file] = saved
            replay.edit(main_file, serial + 1)
            replay.commit([main_file], f"Change {main_file}", replay.author_for(folder))
            replay.files[side_file] = merged_side
            replay.commit(
                [side_file], "Merge branch 'side'", replay.author_for(folder),
                parent=replay.head, merge=side,
            )  # fmt: skip
            merges += 1
        else:
            chosen = rng.sample(members, min(len(members), rng.choice((1, 1, 1, 2, 2, 3, 4))))
            for path in chosen:
                replay.edit(path, serial)
            replay.commit(chosen, f"Change {', '.join(chosen)}", replay.author_for(folder))
    importer.stdin.write(b"done\n")
    importer.stdin.close()
    if importer.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "-C", str(root), "checkout", "-q", "-f", "main"], check=True)
    subprocess.run(["git", "-C", str(root), "branch", "-q", "-D", "side"], capture_output=True)
    return {
        "commits": replay.written,
        "files_at_head": len(replay.files),
        "merges": merges,
        "renames": renames,
        "sweeps": sweeps,
        "generate_seconds": round(time.perf_counter() - started, 1),
        "_replay": replay,
        "_folders": folders,
    }


def extend(root: Path, replay: Replay, folders: dict[str, list[str]], count: int) -> None:
    """Append `count` ordinary commits to the generated repository (for the incremental run)."""
    importer = subprocess.Popen(
        ["git", "-C", str(root), "fast-import", "--quiet", "--done"], stdin=subprocess.PIPE
    )
    replay.out = importer.stdin
    names = sorted(folders)
    parent: str | None = "refs/heads/main^0"  # marks of the first import are gone
    for n in range(count):
        folder = replay.rng.choice(names)
        chosen = replay.rng.sample(folders[folder], min(2, len(folders[folder])))
        for path in chosen:
            replay.edit(path, 1_000_000 + n)
        replay.commit(chosen, "Later change", replay.author_for(folder), parent=parent)
        parent = None  # fast-import continues the branch from here
    importer.stdin.write(b"done\n")
    importer.stdin.close()
    if importer.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard", "main"], check=True)


MINE = """
import json, resource, sys, threading, time
from cartograph.store import open_store
from cartograph.history.mine import mine_history

def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key + ':'):
            return int(line.split()[1]) / 1024

peak_anonymous = [0.0]
done = threading.Event()
def sample():  # the heap (Python objects, SQLite's page cache): file pages mapped don't count
    while not done.wait(0.02):
        peak_anonymous[0] = max(peak_anonymous[0], status('RssAnon'))
threading.Thread(target=sample, daemon=True).start()
store = open_store(sys.argv[1])
started = time.perf_counter()
result = mine_history(store, sys.argv[2], sys.argv[3])
elapsed = time.perf_counter() - started
done.set()
store.close()
print(json.dumps({'seconds': elapsed, 'commits': result.commits, 'touches': result.touches,
  'symbol_touches': result.symbol_touches, 'renamed': result.renamed,
  'heap_peak_mb': max(peak_anonymous[0], status('RssAnon')), 'rss_peak_mb': status('VmHWM'),
  'git_peak_mb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def _mine(store_url: str, root: Path, name: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", MINE, store_url, str(root), name],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["commits_per_second"] = round(out["commits"] / out["seconds"], 1)
    for key in ("seconds", "heap_peak_mb", "rss_peak_mb", "git_peak_mb"):
        out[key] = round(out[key], 2 if key == "seconds" else 1)
    return out


def _query_latencies(store, name: str, rng: random.Random) -> dict:
    from cartograph.query import QueryError
    from cartograph.query.history import co_changes, explain, history, owners

    files = sorted(p for p in store.graph.files(name) if p.endswith(".py"))
    rows = store.graph.symbol_spans(name, ("function", "method", "class"))
    symbols = sorted(symbol for items in rows.values() for _, _, symbol in items)
    picks_files = rng.sample(files, min(50, len(files)))
    picks_symbols = rng.sample(symbols, min(50, len(symbols)))
    calls = [
        ("history_file", history, picks_files),
        ("history_symbol", history, picks_symbols),
        ("co_changes_file", co_changes, picks_files),
        ("co_changes_symbol", co_changes, picks_symbols),
        ("owners_file", owners, picks_files),
        ("owners_folder", owners, sorted({p.rpartition("/")[0] for p in picks_files} - {""})),
        ("explain", explain, picks_symbols),
    ]
    out: dict = {}
    for key, call, targets in calls:
        times = []
        for warm_up in (True, False):
            for target in targets:
                started = time.perf_counter()
                try:
                    call(store, target, name)
                except (LookupError, QueryError):
                    continue
                if not warm_up:
                    times.append((time.perf_counter() - started) * 1000)
        out[f"{key}_p50_ms"] = round(_percentile(times, 50), 2)
        out[f"{key}_p95_ms"] = round(_percentile(times, 95), 2)
    return out


def measure(source: Path, commits: int, store_urls: dict[str, str], tmp: Path) -> dict:
    from cartograph.index import index_repository
    from cartograph.store import open_store

    root = tmp / f"replay-{commits}"
    generated = generate(source, root, commits)
    replay, folders = generated.pop("_replay"), generated.pop("_folders")
    name = "replay"
    out: dict = {"history": generated, "stores": {}}
    for label, url in store_urls.items():
        store = open_store(url)
        store.repos.delete_repo(name)
        started = time.perf_counter()
        index_repository(store, root, name, history=False)
        index_seconds = round(time.perf_counter() - started, 1)
        store.close()
        full = _mine(url, root, name)
        out["stores"][label] = {"index_seconds": index_seconds, "full": full}
    extend(root, replay, folders, 100)
    for label, url in store_urls.items():
        store = open_store(url)
        index_repository(store, root, name, history=False)
        store.close()
        more = _mine(url, root, name)
        store = open_store(url)
        stats = store.history.history_stats(name)
        out["stores"][label]["incremental_100"] = more
        out["stores"][label]["graph"] = stats
        out["stores"][label]["queries"] = _query_latencies(store, name, random.Random(7))
        store.repos.delete_repo(name)
        store.close()
    shutil.rmtree(root, ignore_errors=True)
    return out


def to_markdown(report: dict) -> str:
    lines = [
        f"# History mining — {report['date']}",
        "",
        f"Commit {report['commit']} · {report['machine']} · corpus {report['corpus']} replayed "
        "as generated histories (see benchmark/history.py for their shape) · target "
        f"≥ {TARGET_COMMITS_PER_SECOND:.0f} commits/s into SQLite.",
        "",
        "Mining runs in a fresh interpreter; `commits/s` is main-branch commits read (merges "
        "included) over the whole mining call (git log, line maps, writes, co-change weights). "
        "Memory: *heap* is the peak anonymous memory of the mining process (Python objects and "
        "SQLite's page cache, sampled every 20 ms); *RSS* its high-water mark, which also counts "
        "the pages of the database file SQLite maps (up to 256 MB, shared and reclaimable); "
        "*git* the `git log` it reads from. Query times are warm (each target asked twice, the "
        "second timed).",
        "",
        "| commits | store | files at HEAD | mine s | commits/s | heap MB | RSS MB | git MB "
        "| touches | symbol touches | +100 commits s (read) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in report["runs"]:
        history = run["history"]
        for label, store in run["stores"].items():
            full, more = store["full"], store["incremental_100"]
            lines.append(
                f"| {history['commits']:,} | {label} | {history['files_at_head']:,} "
                f"| {full['seconds']} | {full['commits_per_second']:,} | {full['heap_peak_mb']} "
                f"| {full['rss_peak_mb']} | {full['git_peak_mb']} | {full['touches']:,} "
                f"| {full['symbol_touches']:,} "
                f"| {more['seconds']} ({more['commits']}) |"
            )
    lines += [
        "",
        "Generated histories: "
        + "; ".join(
            f"{r['history']['commits']:,} commits — {r['history']['merges']} merges, "
            f"{r['history']['renames']} renames, {r['history']['sweeps']} sweeps of 150 files, "
            f"written in {r['history']['generate_seconds']} s"
            for r in report["runs"]
        )
        + ".",
        "",
        "## History queries (ms, p50 / p95) on the largest history",
        "",
    ]
    largest = report["runs"][-1]
    labels = list(largest["stores"])
    lines.append("| query | " + " | ".join(labels) + " |")
    lines.append("|---|" + "---|" * len(labels))
    keys = [k[: -len("_p50_ms")] for k in largest["stores"][labels[0]]["queries"] if "p50" in k]
    for key in keys:
        cells = [
            f"{s['queries'][key + '_p50_ms']} / {s['queries'][key + '_p95_ms']}"
            for s in largest["stores"].values()
        ]
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    lines += ["", "## Graph sizes on the largest history", ""]
    for label, store in largest["stores"].items():
        lines.append(
            f"- {label}: "
            + ", ".join(
                f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}"
                for k, v in store["graph"].items()
            )
        )
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Cartograph history mining benchmark")
    parser.add_argument("--corpus", default="django")
    parser.add_argument("--commits", default="2000,10000")
    parser.add_argument("--neo4j", action="store_true", help="also mine into a real Neo4j")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    source = fetch(args.corpus)
    server = None
    with tempfile.TemporaryDirectory(prefix="cartograph-history-bench-") as tmp:
        urls = {"sqlite": f"sqlite:///{Path(tmp) / 'graph.db'}"}
        if args.neo4j:
            from benchmark.neo4j_store import _neo4jdev

            neo4jdev = _neo4jdev()
            neo4jdev.build()
            server = neo4jdev.start(heap="2g", pagecache="1g")
            urls["neo4j"] = server.url
        try:
            runs = [measure(source, int(n), urls, Path(tmp)) for n in args.commits.split(",")]
        finally:
            if server is not None:
                server.stop()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
    ).stdout.strip()
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "corpus": f"{args.corpus}-{CORPORA[args.corpus]}",
        "target_commits_per_second": TARGET_COMMITS_PER_SECOND,
        "runs": runs,
    }
    write_report("history", report, to_markdown(report), write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
