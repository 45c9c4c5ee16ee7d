"""Push notifications from git hosts: authenticate a delivery and read what it announces.

Framework-free (the HTTP adapter is `cartograph.api.webhooks`): bytes and headers in, a
`Delivery` out, or an error the adapter turns into a status code.

| provider | authentication | push event | delivery id |
|---|---|---|---|
| GitHub | `X-Hub-Signature-256: sha256=<HMAC-SHA256(secret, raw body)>` | `X-GitHub-Event: push` (`ping` acknowledged) | `X-GitHub-Delivery` |
| GitLab | `X-Gitlab-Token: <secret>` | `X-Gitlab-Event: Push Hook` | `X-Gitlab-Event-UUID` (or `Idempotency-Key`) |
| Gitea, Forgejo | `X-Gitea-Signature` / `X-Forgejo-Signature`: hex HMAC-SHA256 of the body (or `X-Hub-Signature-256`) | `X-Gitea-Event` / `X-Forgejo-Event: push` | `X-Gitea-Delivery` / `X-Forgejo-Delivery` |
| any CI | `Authorization: Bearer <secret>` | JSON `{"sha": …, "ref": "refs/heads/main"}` (`ref` optional) | `X-Delivery-Id` (optional) |

Every comparison of secrets and signatures is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass

from cartograph.errors import CartographError, ErrorKind

PROVIDERS = ("github", "gitlab", "gitea", "generic")
ZERO_SHA = "0" * 40
_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # fullmatch: no trailing newline
MAX_BODY = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB


class WebhookError(CartographError):
    kind = ErrorKind.INVALID
    status = 400


class Unauthorized(WebhookError):
    kind = ErrorKind.UNAUTHORIZED
    status = 401


@dataclass(slots=True)
class Delivery:
    kind: str  # "push", "ping", "ignored"
    delivery_id: str = ""
    ref: str = ""
    sha: str = ""
    before: str = ""
    reason: str = ""  # why it is ignored


def _header(headers: dict[str, str], name: str) -> str:
    return headers.get(name.lower(), "")


def _hmac_hex(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def authenticate(provider: str, headers: dict[str, str], body: bytes, secret: str) -> None:
    """Raise Unauthorized unless the delivery proves it knows the repository's secret.
    `headers` are lower-cased names."""
    if not secret:
        raise Unauthorized("this repository has no webhook secret")
    if provider == "github":
        given = _header(headers, "X-Hub-Signature-256")
        if not given.startswith("sha256=") or not _same(given[7:], _hmac_hex(secret, body)):
            raise Unauthorized("bad or missing X-Hub-Signature-256")
    elif provider == "gitlab":
        if not _same(_header(headers, "X-Gitlab-Token"), secret):
            raise Unauthorized("bad or missing X-Gitlab-Token")
    elif provider == "gitea":
        given = (
            _header(headers, "X-Gitea-Signature")
            or _header(headers, "X-Forgejo-Signature")
            or _header(headers, "X-Hub-Signature-256").removeprefix("sha256=")
        )
        if not given or not _same(given, _hmac_hex(secret, body)):
            raise Unauthorized("bad or missing X-Gitea-Signature")
    elif provider == "generic":
        given = _header(headers, "Authorization")
        if not given.startswith("Bearer ") or not _same(given[7:].strip(), secret):
            raise Unauthorized("bad or missing Authorization: Bearer <secret>")
    else:
        raise WebhookError(f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}")


def parse(provider: str, headers: dict[str, str], body: bytes, branch: str) -> Delivery:
    """What an authenticated delivery announces; pushes to other branches are ignored."""
    if len(body) > MAX_BODY:
        raise WebhookError("payload too large", ErrorKind.TOO_LARGE)
    event = {
        "github": _header(headers, "X-GitHub-Event"),
        "gitlab": _header(headers, "X-Gitlab-Event"),
        "gitea": _header(headers, "X-Gitea-Event") or _header(headers, "X-Forgejo-Event"),
        "generic": "push",
    }[provider]
    delivery_id = {
        "github": _header(headers, "X-GitHub-Delivery"),
        "gitlab": _header(headers, "X-Gitlab-Event-UUID") or _header(headers, "Idempotency-Key"),
        "gitea": _header(headers, "X-Gitea-Delivery") or _header(headers, "X-Forgejo-Delivery"),
        "generic": _header(headers, "X-Delivery-Id"),
    }[provider][:200]
    if event == "ping" or (provider == "gitlab" and event == "System Hook"):
        return Delivery("ping", delivery_id)
    if event not in ("push", "Push Hook"):
        return Delivery("ignored", delivery_id, reason=f"event {event or '(none)'} is not a push")
    try:
        payload = json.loads(body or b"{}")
    except ValueError as exc:
        raise WebhookError("the body is not JSON") from exc
    except RecursionError as exc:  # nested past the parser's recursion limit
        raise WebhookError("the body is nested too deeply") from exc
    if not isinstance(payload, dict):
        raise WebhookError("the body is not a JSON object")
    ref = payload.get("ref") or (f"refs/heads/{branch}" if provider == "generic" else "")
    sha = payload.get("sha") if provider == "generic" else payload.get("after")
    if provider == "gitlab" and payload.get("checkout_sha"):
        sha = payload["checkout_sha"]
    if not isinstance(ref, str) or not isinstance(sha, str):
        raise WebhookError("a push needs `ref` and the pushed commit")
    sha = sha.strip().lower()
    if ref != f"refs/heads/{branch}":
        return Delivery("ignored", delivery_id, ref, sha, reason=f"{ref} is not tracked")
    if sha == ZERO_SHA:
        return Delivery("ignored", delivery_id, ref, sha, reason="the branch was deleted")
    if not _SHA.fullmatch(sha):
        raise WebhookError(f"{sha[:80]!r} is not a commit sha")
    before = payload.get("before") if isinstance(payload.get("before"), str) else ""
    return Delivery("push", delivery_id, ref, sha, before or "")
