"""Which lessons apply to a target: the rule, once; the store matches exact keys
(`TeamStore.find_lessons`).

A lesson is about paths (`shop/payments.py`), folders (ending in `/`: `shop/`), symbol ids
(`repo:path#qualname`) or `repo:path` forms. It applies to a target when one of its entries is
the target itself, or a folder the target lies in — written bare (`shop/`) or with the
repository (`repo:shop/`): a lesson about `shop/` counts for `shop/payments.py`, for
`repo:shop/payments.py` and for the symbols in it."""

from __future__ import annotations

from collections.abc import Iterable

from cartograph.errors import Invalid
from cartograph.names import repo_path


def lesson_keys(targets: Iterable[str]) -> list[str]:
    """Every `about` entry a lesson may carry to apply to one of `targets`: each target, and
    each folder it lies in, as a prefix of the whole target ending in `/` and — for a target
    of the form `repo:…` — of the part after the repository."""
    keys: dict[str, None] = {}
    for target in targets:
        if not target:
            continue
        keys[target] = None
        keys.update(dict.fromkeys(_folders(target)))
        repo, colon, rest = target.partition(":")
        if colon and repo:
            keys.update(dict.fromkeys(_folders(rest)))
    return sorted(keys)


def _folders(text: str) -> list[str]:
    """The prefixes of `text` that end at a `/` (`a/b/c.py` → `a/`, `a/b/`)."""
    return [text[: i + 1] for i, char in enumerate(text) if char == "/" and i + 1 < len(text)]


def normal_target(target: str) -> str:
    """A lesson's `about` entry in its normal form: a path or folder as `repo_path` writes it
    (a folder keeps its `/`), `repo:path` likewise after the repository; a symbol id (with
    `#`) as given. So `shop//x.py`, `./shop/x.py` and `shop\\x.py` are one target."""
    text = target.strip()
    if "#" in text:
        return text
    repo, colon, rest = text.partition(":")
    try:
        if colon and repo and "/" not in repo:
            return f"{repo}:{repo_path(rest, folder=True)}"
        return repo_path(text, folder=True)
    except Invalid:
        return text  # not a path: kept as written (a lesson may be about anything)
