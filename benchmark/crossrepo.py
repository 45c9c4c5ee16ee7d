"""Push to fresh across repositories: a provider's push with 10 consumers.

werkzeug 3.1.3 is the provider; 10 copies of flask 3.1.0 (`flask0` … `flask9`) are its
consumers, every one calling `werkzeug.utils.send_from_directory` from
`flask.helpers.send_from_directory`. Each round pushes a werkzeug commit that renames that
function away (and back, the next round); fresh = the provider's `indexed_sha` is the pushed
commit and no consumer's caller has an edge to the function while it is renamed away (flask
still calls the old name), every one has it again once it is back.

- deployment: the team set-up of benchmark/push.py — a real Neo4j (tools/neo4j-dev), Redis, the
  API (uvicorn) and two Celery workers (solo pool); the repositories are tracked, every push is
  announced by a signed GitHub webhook, and latency runs from sending the webhook;
- embedded: the same repositories as local work trees in one SQLite store; latency of
  `cartograph index` of the provider (its own run, then the consumers' re-resolution).

    python -m benchmark.crossrepo [--repeat 5] [--consumers 10] [--embedded-only]

Writes benchmark/results/crossrepo-<date>.{json,md}.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmark.corpora import fetch
from benchmark.report import run_facts, write_report
from benchmark.run import _percentile

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

CALLER = "flask.helpers.send_from_directory"
OLD, NEW = "send_from_directory", "send_from_directory_moved"
UTILS = "src/werkzeug/utils.py"


def _round_text(original: str, round_: int) -> str:
    """werkzeug's utils.py as a round pushes it: the function renamed in even rounds, back
    to its name in odd ones (werkzeug's own callers keep the old name: only the definition
    moves)."""
    return original.replace(f"def {OLD}(", f"def {NEW}(") if round_ % 2 == 0 else original


def _consumer_fresh(store, consumer: str, round_: int) -> bool:
    """The consumer's caller as the round left the provider — no edge to the function while it
    is renamed away (flask still calls the old name: an unresolved call), the edge again once
    it is back — and nothing left pending in the consumer (on Neo4j the edge goes with the
    provider's deleted symbol at once; the consumer is fresh once it is re-resolved)."""
    from cartograph.query import callees

    if store.index.pending(consumer):
        return False
    page = callees(store, CALLER, repo=consumer, limit=100)
    calls_it = f"werkzeug.utils.{OLD}" in {n.symbol.qualname for n in page.items}
    return calls_it == (round_ % 2 == 1)


def _summary(values: list[float]) -> dict:
    return {
        "p50": round(_percentile(values, 50), 3),
        "p95": round(_percentile(values, 95), 3),
        "max": round(max(values), 3),
        "runs": [round(v, 3) for v in values],
    }


def measure_embedded(work: Path, consumers: int, repeat: int) -> dict:
    from cartograph.index import index_repository
    from cartograph.store.sqlite import open_sqlite

    provider = work / "werkzeug"
    shutil.copytree(fetch("werkzeug"), provider)
    store = open_sqlite(work / "graph.db")
    names = [f"flask{n}" for n in range(consumers)]
    for name in names:
        shutil.copytree(fetch("flask"), work / name)
        index_repository(store, work / name, name=name, history=False)
    started = time.perf_counter()
    first = index_repository(store, provider, name="werkzeug", history=False)
    initial = time.perf_counter() - started
    original = (provider / UTILS).read_text()
    latencies, consumer_seconds, reresolved = [], [], []
    for round_ in range(repeat):
        (provider / UTILS).write_text(_round_text(original, round_))
        started = time.perf_counter()
        result = index_repository(store, provider, name="werkzeug", history=False, files=[UTILS])
        latencies.append(time.perf_counter() - started)
        consumer_seconds.append(result.seconds.get("consumers", 0.0))
        reresolved.append(sum(result.consumers.values()))
        stale = [n for n in names if not _consumer_fresh(store, n, round_)]
        if stale:
            raise AssertionError(f"round {round_}: not fresh in {stale}")
    store.close()
    return {
        "consumers": consumers,
        "first_provider_index_s": round(initial, 2),
        "first_consumers_reresolved": sum(first.consumers.values()),
        "push_to_fresh_s": _summary(latencies),
        "consumers_part_s": _summary(consumer_seconds),
        "consumer_files_reresolved": reresolved,
    }


def measure_deployment(work: Path, consumers: int, repeat: int) -> dict:
    from benchmark.push import _announce, _seed_remote, _track, _wait_fresh, team_deployment

    with team_deployment(work) as deploy:
        url = deploy.url
        remotes, secrets = {}, {}
        names = [f"flask{n}" for n in range(consumers)]
        for name in names:
            remotes[name] = _seed_remote(work / f"{name}-remote", fetch("flask"))
            secrets[name] = _track(url, name, remotes[name])
            _announce(url, name, secrets[name], remotes[name].head())
        for name in names:
            _wait_fresh(deploy.store, name, remotes[name].head(), None, timeout=1800)
        provider = _seed_remote(work / "werkzeug-remote", fetch("werkzeug"))
        secret = _track(url, "werkzeug", provider)
        started = time.perf_counter()
        _announce(url, "werkzeug", secret, provider.head())
        _wait_fresh(deploy.store, "werkzeug", provider.head(), None, timeout=1800)
        _wait_consumers(deploy.store, names, None, timeout=1800)
        initial = time.perf_counter() - started
        original = (provider.dev / UTILS).read_text()
        latencies, provider_fresh = [], []
        for round_ in range(repeat):
            sha = provider.commit(
                f"rename, round {round_}", write={UTILS: _round_text(original, round_)}
            )
            provider.push()
            sent = time.perf_counter()
            _announce(url, "werkzeug", secret, sha)
            provider_fresh.append(_wait_fresh(deploy.store, "werkzeug", sha, None, 300))
            _wait_consumers(deploy.store, names, round_, timeout=300)
            latencies.append(time.perf_counter() - sent)
    return {
        "consumers": consumers,
        "first_provider_sync_s": round(initial, 2),
        "push_to_all_fresh_s": _summary(latencies),
        "provider_fresh_s": _summary(provider_fresh),
    }


def _wait_consumers(
    store, names: list[str], round_: int | None, timeout: float
) -> dict[str, float]:
    """Seconds until every consumer's caller reflects the round (None: binds at all)."""
    from cartograph.query import callees

    started = time.perf_counter()
    fresh: dict[str, float] = {}
    while len(fresh) < len(names):
        if time.perf_counter() - started > timeout:
            raise TimeoutError(f"not fresh: {sorted(set(names) - set(fresh))}")
        for name in names:
            if name in fresh:
                continue
            if round_ is None:
                page = callees(store, CALLER, repo=name, limit=100)
                ok = any(n.symbol.repo == "werkzeug" for n in page.items)
            else:
                ok = _consumer_fresh(store, name, round_)
            if ok:
                fresh[name] = time.perf_counter() - started
        time.sleep(0.05)
    return fresh


def to_markdown(report: dict) -> str:
    lines = [
        f"# Push to fresh across repositories — {report['date']}",
        "",
        f"Machine: {report['machine']}. Commit: {report['commit']}. Provider: werkzeug 3.1.3 "
        f"(139 files); consumers: {report['embedded']['consumers']} copies of flask 3.1.0 (83 "
        "files each), every one calling werkzeug's `send_from_directory`. A round renames that "
        "function away in the provider (and back the next round); fresh = the provider answers for "
        "the commit and no consumer's `flask.helpers.send_from_directory` has an edge to it while "
        "it is renamed away, every one has it again once it is back.",
        "",
        "| set-up | first index of the provider (consumers bind) s | push → all fresh p50 s | p95 s | max s |",
        "|---|---:|---:|---:|---:|",
    ]
    emb = report["embedded"]
    lines.append(
        f"| embedded SQLite, `cartograph index` of the provider | {emb['first_provider_index_s']} "
        f"| {emb['push_to_fresh_s']['p50']} | {emb['push_to_fresh_s']['p95']} | "
        f"{emb['push_to_fresh_s']['max']} |"
    )
    dep = report.get("deployment")
    if dep:
        lines.append(
            f"| team: Neo4j + Redis + API + 2 Celery workers, webhook → fresh | "
            f"{dep['first_provider_sync_s']} | {dep['push_to_all_fresh_s']['p50']} | "
            f"{dep['push_to_all_fresh_s']['p95']} | {dep['push_to_all_fresh_s']['max']} |"
        )
    lines += [
        "",
        f"Embedded: of each push, the consumers' part (re-resolving their files that bound "
        f"into the changed module, {emb['consumer_files_reresolved'][0]} files in all) took "
        f"p50 {emb['consumers_part_s']['p50']} s.",
    ]
    if dep:
        lines.append(
            f"Team: the provider itself was fresh after p50 {dep['provider_fresh_s']['p50']} s; "
            "its consumers are re-resolved in the same job (a process per core, each taking a share)."
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--consumers", type=int, default=10)
    parser.add_argument("--embedded-only", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cartograph-crossrepo-bench-") as tmp:
        work = Path(tmp)
        (work / "embedded").mkdir()
        embedded = measure_embedded(work / "embedded", args.consumers, args.repeat)
        deployment = None
        if not args.embedded_only:
            (work / "team").mkdir()
            deployment = measure_deployment(work / "team", args.consumers, args.repeat)
    report = {
        **run_facts(),
        "embedded": embedded,
        "deployment": deployment,
    }
    write_report("crossrepo", report, to_markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
