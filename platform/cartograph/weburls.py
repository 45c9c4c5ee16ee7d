"""The web addresses a credential is sent to — a forge's API (`repo forge --url`), the team
server the hooks talk to (`hooks install --server`): https, or plain http only to this
machine (a token sent over plain http to another host can be read on the way)."""

from __future__ import annotations

import ipaddress
import urllib.parse


def is_loopback(host: str) -> bool:
    """`localhost`, or an address of the loopback network (127.0.0.0/8, ::1)."""
    host = host.lower().rstrip(".")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def credential_url_problem(url: str, what: str) -> str:
    """Why `url` cannot carry a credential ("" when it can): not http(s), no host, or plain
    http to another machine. `what` names it in the sentence. The URL itself is not repeated
    (it may hold credentials)."""
    if not url.isprintable() or any(c.isspace() for c in url):
        return f"{what} holds spaces or control characters"
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return f"{what} must be an https URL with a host (not {scheme or 'no'} scheme)"
    try:
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return f"{what} has a port that is not a number"
    if scheme == "http" and not is_loopback(parts.hostname):
        return (
            f"{what} is plain http to {parts.hostname}: the token would cross the network "
            "unencrypted; use https (plain http only to this machine: localhost, 127.0.0.1, ::1)"
        )
    return ""
