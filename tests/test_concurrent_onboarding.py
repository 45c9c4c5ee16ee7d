"""Repositories that import each other, indexed at the same time, end in the graph a sequential
onboarding gives (issue 37: tracking flask, werkzeug, jinja2, click and itsdangerous with two
workers left flask with no edge into click).

A consumer's run may read a provider whose own run has not completed: its record not written
yet (nothing binds) or half of its files rewritten. `index.crossrepo.ProviderWatch` describes
the two checks that make any interleaving converge; these tests race real processes — `cartograph
index` command lines, and Celery workers syncing tracked repositories — on both stores, in
seeded orders, and compare every repository's graph with a sequential onboarding of the same
trees. The runs are released together in the seed's order; which interleaving a round gets is
up to the machine, and every one of them must give the same graph."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from cartograph.admin import track
from cartograph.index import index_repository
from cartograph.store import open_store
from indexing_support import differences, snapshot, start_together, write_tree
from push_support import Deployment, Remote, wait_for_indexed

# five repositories in layers: app uses all four, tmpl uses web, web uses sign
USES = {
    "sign": [],
    "cli": [],
    "web": ["sign"],
    "tmpl": ["web"],
    "app": ["web", "tmpl", "cli", "sign"],
}
MODULES = 12


def project(name: str, modules: int = MODULES, edit: int = 0) -> dict[str, str]:
    """A package `name` of `modules` modules; each function calls the next module's and, for
    every package it uses, that package's function and method of the same number. `edit`
    renames the last `edit` modules' functions in a provider (so a consumer's calls change)."""
    uses = USES[name]
    files = {
        "pyproject.toml": (
            f'[project]\nname = "{name}"\nversion = "1.0"\n'
            f"dependencies = [{', '.join(repr(u) for u in uses)}]\n"
        ),
        f"{name}/__init__.py": f"from {name}.m0 import f0\n",
    }
    for i in range(modules):
        nxt = (i + 1) % modules
        lines = [f"from {name}.m{nxt} import f{nxt}"]
        lines += [f"from {u} import m{i} as {u}_m" for u in uses]
        defined = f"g{i}" if i >= modules - edit else f"f{i}"
        lines += ["", "", f"def {defined}(n=0):", "    if n > 3:", "        return n"]
        for u in uses:
            lines += [f"    {u}_m.f{i}(n)", f"    {u}_m.C{i}().run()"]
        lines += [f"    return f{nxt}(n + 1)", "", "", f"class C{i}:", "    def run(self):"]
        lines += [f"        return {defined}()", ""]
        files[f"{name}/m{i}.py"] = "\n".join(lines)
    return files


def graphs(store, names) -> dict[str, dict[str, set[str]]]:
    """Each repository's graph, its Repo node left out (where and when it was indexed)."""
    found = {}
    for name in names:
        parts = snapshot(store, name)
        parts["nodes"] = {n for n in parts["nodes"] if '"label": "Repo"' not in n}
        found[name] = parts
    return found


def forget_all(store) -> None:
    for repo in store.repos.list_repos():
        store.repos.delete_repo(repo.name)


def sequential(store, roots: dict[str, Path]) -> dict[str, dict[str, set[str]]]:
    forget_all(store)
    for name, root in roots.items():
        index_repository(store, root, name=name, workers=1, history=False)
    return graphs(store, roots)


def assert_same(concurrent, wanted, round_name: str) -> None:
    problems = [
        f"{name}: {problem}"
        for name in wanted
        for problem in differences(concurrent[name], wanted[name], ("concurrent", "sequential"))
    ]
    assert not problems, f"{round_name}: the graphs differ\n" + "\n".join(problems)[:6000]


def cli_runs_together(store_url: str, roots: dict[str, Path], order: list[str]) -> None:
    """`cartograph index` for every repository at once, released in `order` (each child waits
    for a line on stdin once its imports are done)."""
    script = (
        "import sys\nfrom cartograph.cli import main\nsys.stdin.readline()\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    options = ["--no-history", "--workers", "1"]
    argvs = [
        ["--store", store_url, "index", str(roots[name]), "--name", name, *options]
        for name in order
    ]
    for child, _out, err in start_together(script, argvs, timeout=300):
        assert child.returncode == 0, err


def test_concurrent_command_lines_onboard_like_a_sequence(tmp_path, stores):
    roots = {name: write_tree(tmp_path / name, project(name)) for name in USES}
    store = stores.open()
    wanted = sequential(store, roots)
    assert sum(len(g["graph_edges"]) for g in wanted.values()) > 0
    for seed in range(2):
        order = list(USES)
        random.Random(seed).shuffle(order)
        forget_all(store)
        cli_runs_together(stores.url(), roots, order)
        assert_same(graphs(store, roots), wanted, f"onboarding in order {order}")

    # then the providers change while their consumers re-index, all at once
    edited = tmp_path / "edited"
    for name in USES:
        write_tree(edited / name, project(name, edit=4 if USES[name] == [] else 0))
    edited_roots = {name: edited / name for name in USES}
    wanted = sequential(store, edited_roots)
    for seed in range(1):
        order = list(USES)
        random.Random(100 + seed).shuffle(order)
        sequential(store, roots)  # the onboarded state the edit starts from
        cli_runs_together(stores.url(), edited_roots, order)
        assert_same(graphs(store, edited_roots), wanted, f"re-indexing in order {order}")


@pytest.fixture
def two_workers(tmp_path, stores, redis_server):
    redis_server.flush()
    deploy = Deployment(tmp_path, redis_server.url, stores.url("workers"), workers=2)
    deploy.start_workers()
    try:
        yield deploy
    finally:
        deploy.stop_workers()
        deploy.store.close()


def test_two_workers_onboard_tracked_repositories_like_a_sequence(tmp_path, stores, two_workers):
    from cartograph.workers.celery_app import CeleryJobRunner

    deploy = two_workers
    store = deploy.store
    runner = CeleryJobRunner(deploy.env["CARTOGRAPH_BROKER"])
    for seed in range(2):
        # each round tracks new repositories (names carry the round): a mirror and a work
        # tree of their own
        remotes = {f"{n}-{seed}": Remote(tmp_path / f"hosted-{seed}" / n, project(n)) for n in USES}
        order = list(remotes)
        random.Random(seed).shuffle(order)
        for name in order:
            track(store, name, remotes[name].url)
        for name in order:
            assert runner.push(name, remotes[name].head())
        for name in order:
            wait_for_indexed(store, name, remotes[name].head(), timeout=240)
        for name in order:  # the syncs are over, with their re-resolution of consumers
            _wait_for_the_sync(store, name)
        concurrent = graphs(store, order)

        if stores.kind == "sqlite":
            reference = open_store(stores.url(f"sequential-{seed}"))
        else:  # one Neo4j graph: the concurrent result is kept above, then replaced
            forget_all(store)
            reference = store
        wanted = sequential(reference, {name: remotes[name].dev for name in remotes})
        assert_same(concurrent, wanted, f"two workers, announced in order {order}")
        if reference is not store:
            reference.close()
        forget_all(store)


def _wait_for_the_sync(store, name: str, timeout: float = 120.0) -> None:
    """Until the repository's sync job has recorded its end (after its consumers were
    re-resolved: `jobs._record` follows `sync_to`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tracked = store.tracking.get_tracked(name)
        if tracked.last_error:
            raise AssertionError(f"{name}: {tracked.last_error}")
        if tracked.last_job_at:
            return
        time.sleep(0.1)
    raise AssertionError(f"{name}: no sync recorded its end within {timeout} s")
