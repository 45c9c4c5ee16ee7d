"""What a repository name and a path inside a repository may be, and their one normal form.

Everything that takes them (the catalogue's value types at every surface, and the library
functions themselves: claims, activity, lessons, tracking, indexing) goes through these, so two
spellings of one file are one key — `a//b.py`, `a/./b.py`, `a/b.py/`, `a\\b.py` and ` a/b.py`
are all `a/b.py` — and no name carries a trailing newline or a space.
"""

from __future__ import annotations

import re

from cartograph.errors import Invalid

MAX_REPO_NAME = 100
MAX_PATH = 1000
# letters, digits, `.`, `_`, `-`, starting with a letter or digit (whole string: fullmatch)
REPO_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_REPO_NAME - 1}}}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def repo_name(name: object) -> str:
    """`name` when it is a repository name (surrounding spaces dropped; a control character,
    a trailing newline among them, is refused), else Invalid."""
    if not isinstance(name, str) or _CONTROL.search(name):
        raise Invalid(f"{name!r} is not a repository name")
    text = name.strip(" ")
    if not REPO_NAME.fullmatch(text):
        raise Invalid(
            f"{name!r} is not a repository name (letters, digits, . _ -, at most "
            f"{MAX_REPO_NAME} characters, starting with a letter or digit)"
        )
    return text


def name_for_folder(folder_name: str) -> str:
    """A repository name made from a folder's name (`my project` → `my-project`)."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", folder_name).strip("-._")[:MAX_REPO_NAME]
    return text or "repo"


def repo_path(path: object, *, folder: bool = False, empty: bool = False) -> str:
    """The normal form of a path inside a repository: `/`-separated (a backslash is a
    separator), no empty or `.` segments, no trailing `/` — unless `folder` is true, where a
    trailing `/` says "the folder" and is kept. Refused (Invalid): absolute paths, `..`,
    control characters (newlines included), and "" unless `empty`."""
    if not isinstance(path, str):
        raise Invalid(f"{path!r} is not a path inside a repository")
    text = path.strip()
    if _CONTROL.search(text):
        raise Invalid(f"{path!r} is not a path inside a repository (it holds control characters)")
    text = text.replace("\\", "/")
    if text.startswith("/") or re.match(r"[A-Za-z]:/", text):
        raise Invalid(f"{path!r} is absolute: give a path inside the repository")
    trailing = text.endswith("/")
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise Invalid(f"{path!r} climbs out of the repository (`..`)")
    normal = "/".join(parts)
    if len(normal) > MAX_PATH:
        raise Invalid(f"a path has at most {MAX_PATH} characters")
    if not normal:
        if empty:
            return ""
        raise Invalid(f"{path!r} is not a path inside a repository")
    return normal + "/" if folder and trailing else normal
