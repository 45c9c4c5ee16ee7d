"""The git URLs a tracked repository may use, and what may be shown of them.

A tracked URL is fetched by the server: only real transports are accepted — `https`, `ssh`
(also the scp form `user@host:path`), `git`, and local paths or `file://` — never git's
remote helpers (`fd::17`, `ext::sh -c …`), which run programs or read descriptors. Which
transports are allowed is configuration (`CARTOGRAPH_GIT_TRANSPORTS`, comma-separated), and
git itself is held to the same list (`GIT_ALLOW_PROTOCOL`), submodules included.

Credentials embedded in a URL (`https://user:token@host/…`) are needed to fetch, but are never
shown: every URL and every git message that leaves this module's callers goes through
`redact`.
"""

from __future__ import annotations

import os
import re

from cartograph.errors import Invalid

TRANSPORTS_ENV = "CARTOGRAPH_GIT_TRANSPORTS"
DEFAULT_TRANSPORTS = ("https", "ssh", "git", "file")
KNOWN_TRANSPORTS = ("https", "http", "ssh", "git", "file")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_SCP = re.compile(r"(?:[A-Za-z0-9._~-]+@)?[A-Za-z0-9.-]+:(?!//)[^\s]*")
_HELPER = re.compile(r"[A-Za-z0-9][A-Za-z0-9+.-]*::")
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")
REDACTED = "***"


def allowed_transports() -> tuple[str, ...]:
    configured = os.environ.get(TRANSPORTS_ENV, "")
    if not configured.strip():
        return DEFAULT_TRANSPORTS
    wanted = tuple(dict.fromkeys(t.strip().lower() for t in configured.split(",") if t.strip()))
    unknown = [t for t in wanted if t not in KNOWN_TRANSPORTS]
    if unknown:
        raise Invalid(
            f"{TRANSPORTS_ENV}: unknown transport {unknown[0]!r}; "
            f"choose from {', '.join(KNOWN_TRANSPORTS)}"
        )
    return wanted


def transport_of(url: str) -> str:
    """The transport git would use for `url`, or raise Invalid for anything that is not a
    plain git URL (a remote helper, an option, control characters, an unknown scheme)."""
    if not url or url != url.strip() or url.startswith("-"):
        raise Invalid(f"{redact(url)!r} is not a git URL")
    if any(ord(c) < 32 or c == "\x7f" for c in url) or " " in url:
        raise Invalid(f"{redact(url)!r} is not a git URL (it holds spaces or control characters)")
    scheme = _SCHEME.match(url)
    if scheme:
        name = scheme.group(1).lower()
        if name == "git+ssh" or name == "ssh+git":
            return "ssh"
        if name not in KNOWN_TRANSPORTS:
            raise Invalid(f"{redact(url)!r}: the {name!r} transport is not supported")
        return name
    if _HELPER.match(url):
        raise Invalid(f"{redact(url)!r}: git remote helpers (`transport::address`) are refused")
    if url.startswith(("/", "./", "../", "~")) or os.path.isabs(url):
        return "file"
    if _SCP.fullmatch(url):
        return "ssh"
    return "file"  # a relative path


def check_url(url: str) -> str:
    """`url` when its transport is allowed (see `allowed_transports`), else Invalid."""
    transport = transport_of(url)
    allowed = allowed_transports()
    if transport not in allowed:
        raise Invalid(
            f"{redact(url)!r}: the {transport} transport is not allowed here "
            f"(allowed: {', '.join(allowed)}; set {TRANSPORTS_ENV})"
        )
    return url


def git_environment() -> dict[str, str]:
    """The environment of every git command that talks to a remote: no prompts, C messages,
    and only the allowed transports (git refuses the others, submodules included)."""
    return {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
        "GIT_ALLOW_PROTOCOL": ":".join(allowed_transports()),
    }


def redact(text: str) -> str:
    """`text` with the user information of every URL in it (a password, a token) replaced by
    ***: `https://bot:ghp_x@github.com/a/b` → `https://***@github.com/a/b`."""
    return _USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)
