"""Why a selector missed a failing test: replay the test with a profiler recording every call
between the project's own functions (and the test's), find the runtime chain from the test to
the faulted function, and name the first call of that chain the static graph does not hold —
the break, with the kinds of code on either side.

    python -m benchmark.misses flask "src/flask/app.py:Flask.make_response" \\
        "tests/test_basic.py::test_response_types"
"""

from __future__ import annotations

import itertools
import json
import sys
import tempfile
from collections import deque

from benchmark.faults import RUN_TIMEOUT, GroundTruth
from benchmark.tracing import trace_run


def runtime_calls(truth: GroundTruth, node: str) -> set[tuple[str, str]]:
    """(caller, callee) as "path:qualname" pairs of project code, the test run once under
    the profiler of `benchmark.tracing` (collection included)."""
    argv = ["pytest", "-q", "-p", "no:cacheprovider", node]
    env = {"PATH": "/usr/bin:/bin"}
    return trace_run(truth.python, truth.root, argv, env, RUN_TIMEOUT).named_pairs()


def chain(calls: set[tuple[str, str]], test: str, target: str) -> list[str] | None:
    """The shortest runtime chain from the test function to the target."""
    forward: dict[str, list[str]] = {}
    for caller, callee in calls:
        forward.setdefault(caller, []).append(callee)
    start = next((c for c, _ in calls if c == test), test)
    seen = {start: ""}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == target:
            path = [here]
            while seen[path[-1]]:
                path.append(seen[path[-1]])
            return path[::-1]
        for nxt in sorted(forward.get(here, [])):
            if nxt not in seen:
                seen[nxt] = here
                queue.append(nxt)
    return None


def first_break(store, repo: str, path: list[str], modules: dict[str, str]) -> tuple | None:
    """The first step of a runtime chain the graph has no edge (CALLS, REFERENCES,
    INHERITS) for, as (caller, callee)."""
    for caller, callee in itertools.pairwise(path):
        src, dst = _symbol(repo, caller, modules), _symbol(repo, callee, modules)
        if src is None or dst is None:
            return (caller, callee)
        outgoing = {r.edge.dst for r in store.graph.edges_of([src], "out", ["CALLS", "REFERENCES"])}
        if dst not in outgoing and not _nested(src, dst):
            return (caller, callee)
    return None


def _nested(src: str, dst: str) -> bool:
    return dst.startswith(src + ".")  # a function defined inside the caller, run by it


def _symbol(repo: str, name: str, modules: dict[str, str]) -> str | None:
    path, _, qualname = name.partition(":")
    qualname = qualname.replace(".<locals>", "")
    module = modules.get(path)
    if module is None or "<" in qualname:
        return None
    return f"{repo}:{path}#{module}.{qualname}" if module else f"{repo}:{path}#{qualname}"


def explain(truth: GroundTruth, store, repo: str, fault_path: str, fault_qualname: str,
            node: str) -> dict:  # fmt: skip
    modules = {p: r.module for p, r in store.graph.files(repo).items()}
    test_path, _, rest = node.partition("::")
    test = f"{test_path}:{rest.split('[')[0].replace('::', '.')}"
    calls = runtime_calls(truth, node)
    path = chain(calls, test, f"{fault_path}:{fault_qualname}")
    if path is None:
        return {"test": node, "chain": None, "break": None}
    return {"test": node, "chain": path, "break": first_break(store, repo, path, modules)}


if __name__ == "__main__":
    from cartograph.index import index_repository
    from cartograph.store import open_store

    from benchmark.faults import ground_truth

    name, fault, node = sys.argv[1:4]
    truth = ground_truth(name)
    with tempfile.TemporaryDirectory() as scratch:
        graph = open_store(f"sqlite:///{scratch}/g.db")
        index_repository(graph, truth.root, name=name, workers=2, history=False)
        path, _, qualname = fault.partition(":")
        print(json.dumps(explain(truth, graph, name, path, qualname, node), indent=1))
