"""The answer cache: a read asked again gives the answer it gave before, as long as nothing it
depends on has changed since.

An answer depends on two things, and the cache checks both on every hit:

- **the store's contents**, summed up by its generation (`Store.generation()`): a counter that
  every write able to change an answer bumps inside its own transaction (so a write that is
  visible has bumped it too). An entry made at another generation is never used. Writes that
  cannot change a cached answer leave it alone: sessions, claims, activity, overlays and
  webhook deliveries (`answers_change=False` in the stores), so agents at work do not empty
  the cache. (Token writes bump it: the token a request comes with is looked up through the
  cache too, `cartograph.auth.verify`.) The generation is read *before* the answer is
  computed: a write that lands while it is computed leaves an entry under the older
  generation, which the next read skips.
- **the files on disk** the answer judged (is this file changed since it was indexed?): each
  judgement made while an answer was computed is recorded with its verdict, and a hit first
  judges the same files again (a stat each, the hash only when size or mtime moved). A file
  edited since makes the entry a miss.

Only functions marked `@cacheable` are cached: their answer is a function of their arguments,
the store's contents and those disk checks alone (no clock, no job queue, no session). A read
over an agent session's overlay (a store whose graph is an `OverlayGraph`) is never cached here
(the overlay keeps its own layers). Answers are shared between callers: the surfaces render them and never change them.

The HTTP app reads the generation once per request, with the caller's token
(`known_generation`), so a cached answer costs the request one store round trip in all.

`CARTOGRAPH_ANSWER_CACHE` sets how many answers a process keeps (default 1024; 0 turns the
cache off)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from cartograph.store.overlay import OverlayGraph

if TYPE_CHECKING:
    from cartograph.store.interfaces import Store

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")
DEFAULT_CAPACITY = 1024
_MARK = "cartograph_cacheable"

# the generation of the store a request of the HTTP app began at, read once with its token
# (store URL, generation): the reads of that request use it instead of reading it again
_known: ContextVar[tuple[str, int] | None] = ContextVar("cartograph_generation", default=None)
# the disk judgements of the answer being computed on this thread (None: none is recorded)
_judged: ContextVar[list[tuple[Callable[[], bool], bool]] | None] = ContextVar(
    "cartograph_judged_files", default=None
)


def cacheable(function: F) -> F:
    """Mark a read whose answer depends only on its arguments, the store's contents and the
    disk judgements it records (`judged`)."""
    function.__dict__[_MARK] = True
    return function


def is_cacheable(function: Callable[..., Any]) -> bool:
    return bool(getattr(function, _MARK, False))


def judged(check: Callable[[], bool], verdict: bool) -> None:
    """Record a judgement of the disk an answer depends on: `check()` gives the verdict again."""
    found = _judged.get()
    if found is not None:
        found.append((check, verdict))


def not_kept() -> None:
    """Say that the answer being computed depends on the clock (a time budget cut it short):
    the cache answers it once, and computes it again when asked again."""
    judged(_never, True)


def _never() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class _Entry:
    generation: int
    answer: Any
    judgements: tuple[tuple[Callable[[], bool], bool], ...]

    def still_holds(self) -> bool:
        return all(check() == verdict for check, verdict in self.judgements)


class AnswerCache:
    """Answers by (store, function, arguments), least recently used dropped first."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple, _Entry] = OrderedDict()
        # the renderings of the cached answers (JSON, text) by id(answer): the answer is held
        # with them, so its id is not reused while they are kept
        self._renderings: dict[int, tuple[Any, dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def answer(
        self,
        store: Store,
        function: Callable[..., Any],
        args: tuple = (),
        keywords: Mapping[str, Any] | None = None,
    ) -> Any:
        """`function(store, *args, **keywords)`, from the cache when it still holds."""
        keywords = keywords or {}
        key = _key(store, function, args, keywords) if self.capacity > 0 else None
        if key is None:
            return function(store, *args, **keywords)
        generation = generation_of(store)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
        if entry is not None and entry.generation == generation and entry.still_holds():
            self.hits += 1
            return entry.answer
        self.misses += 1
        judgements: list[tuple[Callable[[], bool], bool]] = []
        recording = _judged.set(judgements)
        try:
            answer = function(store, *args, **keywords)
        finally:
            _judged.reset(recording)
        with self._lock:
            replaced = self._entries.get(key)
            if replaced is not None:
                self._renderings.pop(id(replaced.answer), None)
            self._entries[key] = _Entry(generation, answer, tuple(judgements))
            self._entries.move_to_end(key)
            self._renderings[id(answer)] = (answer, {})
            while len(self._entries) > self.capacity:
                _, dropped = self._entries.popitem(last=False)
                self._renderings.pop(id(dropped.answer), None)
        return answer

    def rendered(self, answer: Any, form: str, make: Callable[[], T]) -> T:
        """`make()`, the rendering of an answer in one form ("rest-json", "mcp-text"), kept
        with the answer while the cache keeps it (rendered once per answer, not per call)."""
        with self._lock:
            slot = self._renderings.get(id(answer))
        if slot is None or slot[0] is not answer:
            return make()
        forms = slot[1]
        if form not in forms:
            forms[form] = make()
        return forms[form]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._renderings.clear()


def generation_of(store: Store) -> int:
    """The store's generation: the one the current request began at, else read now."""
    known = _known.get()
    if known is not None and known[0] == store.url:
        return known[1]
    return store.generation()


@contextmanager
def known_generation(store_url: str, generation: int) -> Iterator[None]:
    """Within the block (a request, and the worker threads it starts, which copy the context),
    reads of the store at `store_url` take `generation` as its generation. A request sees the
    store as it was when it began: a write that lands while it runs is seen by the next one.
    (No request writes what a cached answer holds and then reads it back: one operation each,
    and GraphQL's mutations change only sessions and claims.)"""
    token = _known.set((store_url, generation))
    try:
        yield
    finally:
        _known.reset(token)


def _key(
    store: Store, function: Callable[..., Any], args: tuple, keywords: Mapping[str, Any]
) -> tuple | None:
    """The entry's key, or None when the call is not cached (an unmarked function, or an
    argument that is not a plain value)."""
    if not is_cacheable(function) or isinstance(store.graph, OverlayGraph):
        return None  # a session's overlay keeps its own layers (cartograph.agents.overlay)
    given = _frozen(args)
    named = _frozen(tuple((name, keywords[name]) for name in sorted(keywords)))
    if given is _UNCACHED or named is _UNCACHED:
        return None
    return (store.url, function.__module__, function.__qualname__, given, named)


_UNCACHED = object()


def _frozen(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        items = tuple(_frozen(item) for item in value)
        return _UNCACHED if _UNCACHED in items else (type(value).__name__, items)
    return _UNCACHED


def _capacity() -> int:
    configured = os.environ.get("CARTOGRAPH_ANSWER_CACHE", "").strip()
    try:
        return max(0, int(configured)) if configured else DEFAULT_CAPACITY
    except ValueError:
        return DEFAULT_CAPACITY


ANSWERS = AnswerCache(_capacity())  # this process's cache (every surface shares it)


def answer(store: Store, function: Callable[..., Any], *args: Any, **keywords: Any) -> Any:
    """`function(store, *args, **keywords)`, through this process's answer cache."""
    return ANSWERS.answer(store, function, args, keywords)


def rendered(answer: Any, form: str, make: Callable[[], T]) -> T:
    """`make()`, once per cached answer (see AnswerCache.rendered)."""
    return ANSWERS.rendered(answer, form, make)
