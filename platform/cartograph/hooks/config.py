"""Which team server a work tree's hooks talk to, and with which token: kept out of the project
(a token never lands in `.claude/settings.json`, which teams commit) in the user's own file,
$XDG_CONFIG_HOME/cartograph/hooks.json (mode 0600), one entry per work tree or `*` for every
one (`hooks install --scope user`). CARTOGRAPH_SERVER and CARTOGRAPH_TOKEN override it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from cartograph.private import private_dir

EVERY_TREE = "*"


@dataclass(slots=True)
class ServerConfig:
    root: str  # the work tree (absolute), or EVERY_TREE
    url: str
    token: str | None = None
    repo: str | None = None  # the repository's name on the server (default: found by remote)


def config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "cartograph" / "hooks.json"


def _entries() -> list[ServerConfig]:
    try:
        data = json.loads(config_file().read_text())
        return [ServerConfig(**entry) for entry in data.get("servers", [])]
    except (OSError, ValueError, TypeError):
        return []


def _write(entries: list[ServerConfig]) -> None:
    path = config_file()
    private_dir(path.parent)
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"servers": [asdict(e) for e in entries]}, out, indent=2)
    temporary.replace(path)


def server_for(cwd: str, env: Mapping[str, str] | None = None) -> ServerConfig | None:
    """The team server of the work tree holding `cwd`: CARTOGRAPH_SERVER (and _TOKEN) of `env`
    (this process's environment by default), else the user's file."""
    env = os.environ if env is None else env
    url = env.get("CARTOGRAPH_SERVER")
    if url:
        return ServerConfig(EVERY_TREE, url, env.get("CARTOGRAPH_TOKEN"))
    here = Path(cwd).resolve()
    best: ServerConfig | None = None
    for entry in _entries():
        if entry.root == EVERY_TREE:
            best = best or entry
            continue
        root = Path(entry.root)
        if (here == root or root in here.parents) and (
            best is None or best.root == EVERY_TREE or len(entry.root) > len(best.root)
        ):
            best = entry
    return best


def set_server(entry: ServerConfig) -> None:
    _write([e for e in _entries() if e.root != entry.root] + [entry])


def forget_server(root: str) -> bool:
    entries = _entries()
    kept = [e for e in entries if e.root != root]
    if len(kept) != len(entries):
        _write(kept)
        return True
    return False
