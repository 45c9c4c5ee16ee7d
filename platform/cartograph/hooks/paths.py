"""Where the hooks keep what outlives one run (the standard library only: every hook run
imports it): $CARTOGRAPH_DATA/hooks, else $XDG_DATA_HOME/cartograph/hooks."""

from __future__ import annotations

import os


def hooks_dir() -> str:
    base = os.environ.get("CARTOGRAPH_DATA") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "cartograph"
    )
    return os.path.join(base, "hooks")
