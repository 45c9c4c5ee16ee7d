"""Cartograph's own folders and files (the data folder with its mirrors and worktrees, the
hooks folder with its logs, states and jobs) are its user's only: folders 0700, files 0600,
whatever the umask; one found wider (made by an older version, or under a looser umask) is
narrowed when it is opened. The standard library only: every hook run imports it."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

_FLAGS = {
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
}


def private_dir(path: str | os.PathLike[str], within: str | os.PathLike[str] = "") -> Path:
    """The folder, made (with every missing parent) 0700, or narrowed to its owner; and so
    every folder between it and `within` (Cartograph's own folder it lies in)."""
    make_dirs(path)
    narrow(path)
    if within:
        for parent in Path(path).parents:
            if not parent.is_relative_to(within):
                break
            narrow(parent)
    return Path(path)


def make_dirs(path: str | os.PathLike[str]) -> None:
    """Make the folder and every missing parent 0700 (an existing one keeps its mode)."""
    folder = Path(path)
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        try:
            created.mkdir(mode=0o700)
        except FileExistsError:
            continue  # another process made it meanwhile
        os.chmod(created, 0o700)  # the umask may have taken the owner's own bits


def narrow(path: str | os.PathLike[str]) -> None:
    """Take the group's and others' permissions from an existing file or folder of this user
    (nothing when it is missing or another user's)."""
    try:
        found = os.stat(path)
        mode = stat.S_IMODE(found.st_mode)
        if found.st_uid == os.getuid() and mode & 0o077:
            os.chmod(path, mode & 0o700)
    except OSError:
        pass


def open_private(path: str | os.PathLike[str], mode: str = "a") -> IO[str]:
    """A text file opened to append ("a") or write ("w"), made 0600, or narrowed to 0600."""
    fd = os.open(path, _FLAGS[mode], 0o600)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, 0o600)
        return os.fdopen(fd, mode, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def write_private(path: str | os.PathLike[str], text: str) -> None:
    with open_private(path, "w") as out:
        out.write(text)
