"""Classes of Python's standard library seen from the repository (the `callback` rule), as the
resolver asks about them.

A repository class on a standard-library base (`unittest.TestCase`, `logging.Handler`,
`socketserver.BaseRequestHandler`) inherits methods whose code runs outside the repository and
may call back what the class overrides: `handler.handle(record)` runs `Handler.handle`, which
calls `self.emit(record)`, the subclass's `emit`. `standard_class_members` names what a base
has (what an override can be called back as), `standard_method_reach` what one inherited
method may look up on its instance (a `Reach`), read from the source of the Python that
indexes (`standard_reading.py` says how).

The indexing process never imports the standard modules it asks about: the answers come from
the cache file of this interpreter and computing code (`standard_answers.AnswerCache`), else
from a process of this interpreter that imports and reads them (`standard_process.py`),
started on the first question the file does not answer, one per indexing process, asked
over a pipe and ended with it. A process forked from one that started it (an index run's
resolve workers) starts its own on its first such question: they share the cache file, not
the pipe. A plain child process, not `multiprocessing`'s, so a daemonic process (a Celery
prefork child) may start it too. The standard library only (an indexer imports this module).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
from typing import Any

from cartograph.resolve.standard_answers import (
    PACKAGE,
    PROCESS_MODULE,
    AnswerCache,
    Answers,
    Reach,
    cache_path,
    is_standard_module,
    members_from_json,
    members_key,
    reach_from_json,
    reach_key,
)

__all__ = ["PROCESS_MODULE", "Reach", "close", "standard_class_members", "standard_method_reach"]

log = logging.getLogger("cartograph.resolve")
Bases = tuple[tuple[str, str], ...]
WAIT_AT_EXIT = 10.0  # seconds a process waits, when it ends, for its reader to save


def standard_class_members(top: str, written: str) -> frozenset[str] | None:
    """The attribute names of the class of Python's standard library written `written` in a
    module that has it from the standard module `top`: `unittest.TestCase` after `import
    unittest`, `TestCase` after `from unittest import TestCase`, `mock.Mock` after `from
    unittest import mock`. None when it is not one (a module outside the standard library, an
    alias, a subscripted or computed base)."""
    return LIBRARY.class_members(top, written)


def standard_method_reach(bases: Bases, method: str) -> Reach | None:
    """What calling `method` on an instance of a class whose bases outside the repository
    are the standard classes `bases` ((top, written) pairs, as for `standard_class_members`:
    those of the class and of its repository ancestors) may look up on that instance. None
    when that cannot be known (then any member of the bases can be called back)."""
    return LIBRARY.method_reach(bases, method)


def close() -> None:
    """End this process's reader of the standard library, once it has saved what it computed
    (a later question starts another)."""
    LIBRARY.close()


class _Reader:
    """The process reading the standard library for this one, and the pipe to it."""

    def __init__(self, cache: AnswerCache | None) -> None:
        root = str(PACKAGE.parent)  # the folder holding `cartograph` (its `platform` root)
        bootstrap = (
            f"import sys; sys.path.append({root!r}); from {PROCESS_MODULE} import main; main()"
        )
        # -I: the standard library as installed, never a module of the indexer's folder or
        # PYTHONPATH that shadows one
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-c", bootstrap, str(cache.path) if cache else ""],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self.buffer = b""

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to one request; OSError or ValueError when the process fails."""
        assert self.process.stdin is not None and self.process.stdout is not None
        data = memoryview(json.dumps(request).encode() + b"\n")
        while data:
            written = self.process.stdin.write(data)
            data = data[written or 0 :]
        while b"\n" not in self.buffer:
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("the standard library's reader ended")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        reply = json.loads(line)
        if not isinstance(reply, dict):
            raise ValueError("not an answer")
        return reply

    def close(self, wait: float) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close() if pipe is not None else None
        # past the wait, it ends by itself once it has saved (its pipe is closed)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=wait)

    def forget(self) -> None:
        """In a forked child: the parent's process is not this one's to ask or to wait for
        (the pipes' descriptors are closed, the child's copies only)."""
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close() if pipe is not None else None
        _INHERITED.append(self.process)  # never collected here: its parent waits for it


# the parent's processes a forked child holds (kept, so that no finaliser waits for them)
_INHERITED: list[subprocess.Popen] = []


class StandardLibrary:
    """The answers of this process: those asked before, the cache file's, the reader's."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.members: dict[tuple[str, str], frozenset[str] | None] = {}
        self.reaches: dict[tuple[Bases, str], Reach | None] = {}
        self.cache: AnswerCache | None = None
        self.read_signature: tuple[int, int] | None = None
        self.file = Answers({}, {})  # what the cache file held when last read
        self.reader: _Reader | None = None
        self.started = 0  # readers this process started
        self.failed = False

    def class_members(self, top: str, written: str) -> frozenset[str] | None:
        key = (top, written)
        if key in self.members:
            return self.members[key]
        if not is_standard_module(top):
            return None
        with self.lock:
            if key not in self.members:
                self.members[key] = self._answer(
                    "members", members_key(top, written), [top, written], members_from_json
                )
            return self.members[key]

    def method_reach(self, bases: Bases, method: str) -> Reach | None:
        key = (bases, method)
        if key in self.reaches:
            return self.reaches[key]
        if not all(is_standard_module(top) for top, _ in bases):
            return None
        with self.lock:
            if key not in self.reaches:
                question = [[list(base) for base in bases], method]
                self.reaches[key] = self._answer(
                    "reach", reach_key(bases, method), question, reach_from_json
                )
            return self.reaches[key]

    def _answer(self, kind: str, key: str, question: list, decode: Any) -> Any:
        """From the cache file (read again when another process replaced it), else from the
        reader; None (not known) when the reader cannot answer."""
        self._read_file()
        held = getattr(self.file, kind)
        if key in held:
            return decode(held[key])
        reply = self._ask({kind: question})
        if reply is None or kind not in reply:
            return None
        try:
            return decode(reply[kind])
        except ValueError:
            return None

    def _read_file(self) -> None:
        if self.cache is None:
            self.cache = AnswerCache(cache_path())
        signature = self.cache.signature()
        if signature is not None and signature != self.read_signature:
            self.file = self.cache.read()
            self.read_signature = signature

    def _ask(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The reader's reply, started on first need and once more when it fails; after a
        second failure this process asks no more (every answer then is "not known")."""
        for _attempt in range(2):
            if self.failed:
                return None
            try:
                if self.reader is None:
                    self.started += 1
                    self.reader = _Reader(self.cache)
                return self.reader.ask(request)
            except (OSError, ValueError, EOFError) as exc:
                log.warning("the standard library's reader failed: %s", exc)
                if self.reader is not None:
                    self.reader.process.kill()
                    self.reader.close(wait=WAIT_AT_EXIT)
                    self.reader = None
        self.failed = True
        return None

    def close(self) -> None:
        with self.lock:
            if self.reader is not None:
                self.reader.close(wait=WAIT_AT_EXIT)
                self.reader = None

    def after_fork(self) -> None:
        self.lock = threading.Lock()  # (another thread may have held it at the fork)
        if self.reader is not None:
            self.reader.forget()
            self.reader = None
        self.started = 0


LIBRARY = StandardLibrary()
os.register_at_fork(after_in_child=LIBRARY.after_fork)
atexit.register(LIBRARY.close)
