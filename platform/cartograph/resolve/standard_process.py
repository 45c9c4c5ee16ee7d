"""The process that reads the standard library for an indexing process (`resolve/standard.py`
starts it: `python -I -c … main(cache file)`), so that the indexer never imports the code it
analyses. It imports the standard modules it is asked about and reads their source
(`standard_reading.py`), and keeps what it computed for the life of its parent.

One JSON object a line on its standard input, one answer a line on its standard output:
- `{"members": [top, written]}` → `{"members": [name, …] | null}`
  (`standard_reading.class_members`);
- `{"reach": [[[top, written], …], method]}` → `{"reach": {Reach's JSON} | null}`
  (`standard_reading.method_reach`);
- a request it cannot answer (a question it does not know, an error while reading) →
  `{"error": "…"}`, which the indexer takes for "not known".
The protocol's descriptors are moved off 0 and 1 first (a standard module that prints or
reads its standard input at import cannot mix into it: what it prints goes to standard error).

It ends when its standard input closes (its parent ended, however), after adding what it
computed to the cache file (`AnswerCache.add`; also every `SAVE_EVERY` seconds while it has
new answers, so a process killed outright loses little). Ctrl-C in a terminal reaches its
parent, which closes the pipe; SIGTERM ends it as the pipe's end does.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
import warnings
from pathlib import Path
from typing import Any, BinaryIO

from cartograph.resolve.standard_answers import (
    AnswerCache,
    Answers,
    members_key,
    reach_key,
)
from cartograph.resolve.standard_reading import class_members, method_reach

SAVE_EVERY = 5.0  # seconds between two saves of new answers while the parent runs


def answer(request: dict[str, Any], new: Answers) -> dict[str, Any]:
    """The answer to one request; what it computed is recorded in `new`."""
    if "members" in request:
        top, written = request["members"]
        members = class_members(str(top), str(written))
        names = None if members is None else sorted(members)
        new.members[members_key(top, written)] = names
        return {"members": names}
    if "reach" in request:
        written_bases, method = request["reach"]
        bases = tuple((str(top), str(written)) for top, written in written_bases)
        reach = method_reach(bases, str(method))
        value = None if reach is None else reach.to_json()
        new.reach[reach_key(bases, str(method))] = value
        return {"reach": value}
    return {"error": "an unknown request"}


def serve(requests: BinaryIO, answers: BinaryIO, cache: AnswerCache | None) -> None:
    new = Answers({}, {})
    saved = time.monotonic()
    try:
        for line in requests:
            try:
                reply = answer(json.loads(line), new)
            except Exception as exc:  # a malformed request, or code this reading does not expect
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            answers.write(json.dumps(reply).encode() + b"\n")
            answers.flush()
            if cache is not None and len(new) and time.monotonic() - saved > SAVE_EVERY:
                _save(cache, new)
                new, saved = Answers({}, {}), time.monotonic()
    finally:
        if cache is not None and len(new):
            _save(cache, new)


def _save(cache: AnswerCache, new: Answers) -> None:
    # a folder that cannot be written: the answers are computed again next time
    with contextlib.suppress(OSError):
        cache.add(new)


def main() -> None:
    warnings.simplefilter("ignore")  # a deprecated module imported to be read
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    os.dup2(2, 1)
    path = sys.argv[1] if len(sys.argv) > 1 else ""
    # the parent may end while an answer is on its way
    with contextlib.suppress(BrokenPipeError):
        serve(requests, answers, AnswerCache(Path(path)) if path else None)
