"""Which of a project's functions call which at runtime: a profiler hook over a whole run.

`trace_run(python, root, argv, out)` runs `python -m <argv...>` in `root` (a test runner:
`pytest …`, `unittest discover …`) with `sys.setprofile` and `threading.setprofile` installed
before the runner starts, so collection, imports, fixtures and the tests are all seen. Every
Python frame entered whose code lives under `root` is a node — (path relative to the root,
`co_qualname`, `co_firstlineno`, kind) with kind one of `module` (`<module>`), `class` (a class
body), `anonymous` (a lambda, comprehension or generator expression) and `function` — and
each entry records a pair (caller, callee): the caller is the nearest frame below it whose code
is also under the root, found through frames of the interpreter's libraries (the standard
library, the virtualenv's site-packages: pluggy, werkzeug…) and generated code (`<string>`, a
dataclass's `__init__`). A pair reached through such frames is *mediated*, and its site names
the outside function the caller called and the one that called the callee.

A generator (or coroutine) resumed by `next()`/`send()` enters its frame again: only its first
entry is a call (the frame starts at its first `RESUME`), later entries are not recorded.
Frames entered with no code of the root below them (the test runner calling a test, a thread's
or an event loop's first frame) are counted per node as `roots`; frames called by other code
(the test files pytest's own tests write to a temporary folder and run) as `foreign`: that
code's calls are not the tree's.

Per pair: how many entries were direct and how many mediated, and up to `SITES` call sites,
each `[line, end_line, col, end_col, outer, inner]` — the caller's instruction at the call
(`co_positions`, byte columns) and, for a mediated entry, `path:qualname` of the outside
frames (`outer` called by the caller, `inner` calling the callee). Child processes are not
traced. The result (JSON) is written when the runner exits, by the process that started it.

An error in calling the profile function unsets it (a test that recurses to the recursion
limit: the call of the profile function is the one that fails); an audit hook puts it back at
the next audited event of that thread, and the trace counts how often (`reinstalled`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SITES = 3
MODULE = "cartograph_trace"

TRACER = r'''
"""Written by benchmark/tracing.py: run `python -m cartograph_trace MODULE ARGS...` under a
profile hook recording the calls between functions whose code is under $CARTOGRAPH_TRACE_ROOT."""
import dis, json, os, runpy, sys, threading, time

ROOT = os.path.realpath(os.environ["CARTOGRAPH_TRACE_ROOT"]) + os.sep
OUT = os.environ["CARTOGRAPH_TRACE_OUT"]
SITES = int(os.environ.get("CARTOGRAPH_TRACE_SITES", "3"))
PID = os.getpid()
GENERATOR = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async gen
ANONYMOUS = {"<lambda>", "<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>"}
# what a caller is looked for through: the interpreter's libraries (the standard library, the
# virtualenv's site-packages) and generated code (`<string>`: dataclasses, namedtuple; frozen)
LIBRARIES = tuple(
    sorted({p + os.sep for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                 sys.base_exec_prefix)}
           | {os.path.realpath(p) + os.sep for p in (sys.prefix, sys.base_prefix)})
) + ("<", __file__)  # and this module: the runner's first frame
NODES = []  # [path, qualname, firstlineno, kind, generator]
INDEX = {}  # tuple(node) -> its index
CODES = {}  # id(code) -> (code, node index, first RESUME offset or -1); the code kept alive
PAIRS = {}  # (caller, callee) -> [direct, mediated, sites]
ROOTS = {}  # node -> entries with no code of the root below it
FOREIGN = {}  # node -> entries called by code neither of the root nor of a library
REINSTALLED = [0]  # times the profile function was found unset and put back
STOPPED = []


def node(code):
    known = CODES.get(id(code))
    if known is not None:
        return known
    path = code.co_filename
    if not path.startswith(ROOT):
        return None
    if code.co_name == "<module>":
        kind = "module"
    elif code.co_name in ANONYMOUS:
        kind = "anonymous"
    elif not code.co_flags & 0x2:  # no CO_NEWLOCALS: a class body
        kind = "class"
    else:
        kind = "function"
    generator = bool(code.co_flags & GENERATOR)
    start = -1
    if generator:
        start = next(i.offset for i in dis.get_instructions(code) if i.opname == "RESUME")
    row = (path[len(ROOT):], code.co_qualname, code.co_firstlineno, kind, generator)
    index = INDEX.get(row)  # the same def compiled again (hypothesis, a reloaded module)
    if index is None:
        index = INDEX[row] = len(NODES)
        NODES.append(list(row))
    known = CODES[id(code)] = (code, index, start)
    return known


def where(code):
    return code.co_filename + ":" + code.co_qualname


def profile(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    if not code.co_filename.startswith(ROOT):
        return
    _, callee, start = node(code)
    if start >= 0 and frame.f_lasti != start:
        return  # a generator or coroutine resumed, not called
    back = frame.f_back
    outer = None
    while back is not None:
        filename = back.f_code.co_filename
        if filename.startswith(ROOT):
            break
        if not filename.startswith(LIBRARIES):
            FOREIGN[callee] = FOREIGN.get(callee, 0) + 1
            return
        outer = back
        back = back.f_back
    if back is None:
        ROOTS[callee] = ROOTS.get(callee, 0) + 1
        return
    caller = node(back.f_code)[1]
    entry = PAIRS.get((caller, callee))
    if entry is None:
        entry = PAIRS[(caller, callee)] = [0, 0, [], set()]
    entry[0 if outer is None else 1] += 1
    lasti = back.f_lasti
    if len(entry[2]) < SITES and lasti not in entry[3]:
        entry[3].add(lasti)
        positions = list(back.f_code.co_positions())
        at = lasti // 2
        site = list(positions[at]) if at < len(positions) else [None] * 4
        site += [where(outer.f_code), where(frame.f_back.f_code)] if outer else ["", ""]
        entry[2].append(site)


def audit(event, args):
    """An error in calling the profile function (a RecursionError in a test recursing to the
    limit) unsets it: the next audited event of that thread (an import, an open, a
    sys._getframe, …) puts it back."""
    if STOPPED or event == "sys.setprofile" or sys.getprofile() is not None:
        return  # (setting it is an audited event too)
    sys.setprofile(profile)
    REINSTALLED[0] += 1


def write(seconds, status):
    if os.getpid() != PID:
        return  # a forked child running the runner's code to its end
    STOPPED.append(True)
    sys.setprofile(None)
    threading.setprofile(None)
    data = {
        "root": ROOT, "argv": sys.argv, "seconds": seconds, "status": status,
        "reinstalled": REINSTALLED[0],
        "nodes": NODES, "roots": sorted(ROOTS.items()), "foreign": sorted(FOREIGN.items()),
        "pairs": [[a, b, *entry[:3]] for (a, b), entry in PAIRS.items()],
    }
    with open(OUT + ".part", "w") as handle:
        json.dump(data, handle)
    os.replace(OUT + ".part", OUT)


def main():
    module, *args = sys.argv[1:]
    sys.argv = [module, *args]
    started = time.perf_counter()
    status = 0
    sys.addaudithook(audit)
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as done:
        status = int(done.code) if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        write(round(time.perf_counter() - started, 2), status)
    sys.exit(status)


if __name__ == "__main__":
    main()
'''


@dataclass
class Trace:
    """The pairs of one traced run: nodes are [path, qualname, firstlineno, kind, generator];
    pairs [caller, callee, direct, mediated, sites] by node index."""

    nodes: list[list]
    pairs: list[list]
    roots: list[list] = field(default_factory=list)
    foreign: list[list] = field(default_factory=list)
    seconds: float = 0.0
    status: int = 0
    argv: list[str] = field(default_factory=list)
    reinstalled: int = 0  # times the profile function was found unset and put back

    def named_pairs(self) -> set[tuple[str, str]]:
        """(caller, callee) as "path:qualname" strings."""
        names = [f"{path}:{qualname}" for path, qualname, *_ in self.nodes]
        return {(names[a], names[b]) for a, b, *_ in self.pairs}


def trace_run(
    python: Path, root: Path, argv: list[str], env: dict[str, str], timeout: float
) -> Trace:
    """Run `python -m <argv>` in `root` under the profile hook (env: the runner's environment,
    PYTHONPATH gets the tracer's folder). Raises RuntimeError when the run is killed after
    `timeout` seconds or leaves no trace."""
    with tempfile.TemporaryDirectory(prefix="cartograph-trace-") as scratch:
        (Path(scratch) / f"{MODULE}.py").write_text(TRACER)
        out = Path(scratch) / "trace.json"
        paths = [scratch, *filter(None, [env.get("PYTHONPATH")])]
        variables = {
            **env,
            "PYTHONPATH": os.pathsep.join(paths),
            "CARTOGRAPH_TRACE_ROOT": str(root.resolve()),
            "CARTOGRAPH_TRACE_OUT": str(out),
            "CARTOGRAPH_TRACE_SITES": str(SITES),
        }
        started = time.perf_counter()
        process = subprocess.Popen(
            [str(python), "-m", MODULE, *argv],
            cwd=root,
            env=variables,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a timeout kills what the run started too
        )
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise RuntimeError(f"the traced run {argv} passed {timeout:.0f} s") from None
        if not out.exists():
            tail = output.decode("utf-8", "replace")[-3000:]
            raise RuntimeError(f"the traced run {argv} left no trace:\n{tail}")
        data = json.loads(out.read_text())
    return Trace(
        nodes=data["nodes"],
        pairs=data["pairs"],
        roots=data["roots"],
        foreign=data["foreign"],
        seconds=round(time.perf_counter() - started, 2),
        status=data["status"],
        argv=list(argv),
        reinstalled=data["reinstalled"],
    )
