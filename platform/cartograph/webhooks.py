"""Push notifications from git hosts: authenticate a delivery and read what it announces.

Framework-free (the HTTP adapter is `cartograph.api.webhooks`): bytes and headers in, a
`Delivery` out, or an error the adapter turns into a status code.

| provider | authentication | push event | delivery id |
|---|---|---|---|
| GitHub | `X-Hub-Signature-256: sha256=<HMAC-SHA256(secret, raw body)>` | `X-GitHub-Event: push`, `pull_request` (`ping` acknowledged) | `X-GitHub-Delivery` |
| GitLab | `X-Gitlab-Token: <secret>` | `X-Gitlab-Event: Push Hook`, `Merge Request Hook` | `X-Gitlab-Event-UUID` (or `Idempotency-Key`) |
| Gitea, Forgejo | `X-Gitea-Signature` / `X-Forgejo-Signature`: hex HMAC-SHA256 of the body (or `X-Hub-Signature-256`) | `X-Gitea-Event` / `X-Forgejo-Event: push`, `pull_request` | `X-Gitea-Delivery` / `X-Forgejo-Delivery` |
| any CI | `Authorization: Bearer <secret>` | JSON `{"sha": …, "ref": "refs/heads/main"}` (`ref` optional) | `X-Delivery-Id` (optional) |

A pull request (merge request) opened, reopened or pushed to is a `pull_request` delivery: its
number, head commit and base branch, for its impact report (`cartograph.reviews`).

Every comparison of secrets and signatures is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass

from cartograph.errors import CartographError, ErrorKind
from cartograph.model import MAX_PULL_REQUEST

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
    kind: str  # "push", "pull_request", "ping", "ignored"
    delivery_id: str = ""
    ref: str = ""  # a push's branch ref; a pull request's base branch
    sha: str = ""  # the pushed commit; a pull request's head
    before: str = ""
    reason: str = ""  # why it is ignored
    number: int = 0  # a pull request's number (GitLab: the merge request's iid)
    title: str = ""


PULL_REQUEST_EVENTS = {"github": "pull_request", "gitlab": "Merge Request Hook",
                       "gitea": "pull_request"}  # fmt: skip
# what a pull request's delivery may announce that changes its impact
GITHUB_PR_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review", "edited")
GITLAB_MR_ACTIONS = ("open", "reopen", "update")


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
    pull_request = event == PULL_REQUEST_EVENTS.get(provider)
    if event not in ("push", "Push Hook") and not pull_request:
        return Delivery("ignored", delivery_id, reason=f"event {event or '(none)'} is not a push")
    try:
        payload = json.loads(body or b"{}")
    except ValueError as exc:
        raise WebhookError("the body is not JSON") from exc
    except RecursionError as exc:  # nested past the parser's recursion limit
        raise WebhookError("the body is nested too deeply") from exc
    if not isinstance(payload, dict):
        raise WebhookError("the body is not a JSON object")
    if pull_request:
        return _pull_request(provider, delivery_id, payload)
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


def _pull_request(provider: str, delivery_id: str, payload: dict) -> Delivery:
    """A pull request (merge request) opened or pushed to: its number, head, base branch."""
    if provider == "gitlab":
        attributes = _object(payload.get("object_attributes"))
        action = attributes.get("action")
        number = attributes.get("iid")
        sha = _object(attributes.get("last_commit")).get("id")
        base = attributes.get("target_branch")
        title = attributes.get("title")
        wanted = action in GITLAB_MR_ACTIONS
    else:
        request = _object(payload.get("pull_request"))
        action = payload.get("action")
        number = payload.get("number") or request.get("number")
        sha = _object(request.get("head")).get("sha")
        base = _object(request.get("base")).get("ref")
        title = request.get("title")
        wanted = action in GITHUB_PR_ACTIONS
    if not wanted:
        return Delivery("ignored", delivery_id, reason=f"pull request action {action!r}")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise WebhookError("a pull request needs its number")
    if number > MAX_PULL_REQUEST:  # refused before anything is recorded
        raise WebhookError(
            f"pull request number {number} is out of range: numbers 1 to {MAX_PULL_REQUEST} are "
            "reported"
        )
    if not isinstance(sha, str) or not _SHA.fullmatch(sha.strip().lower()):
        raise WebhookError("a pull request needs its head commit")
    if not isinstance(base, str) or not base:
        raise WebhookError("a pull request needs its base branch")
    return Delivery(
        "pull_request",
        delivery_id,
        f"refs/heads/{base}",
        sha.strip().lower(),
        number=number,
        title=title[:300] if isinstance(title, str) else "",
    )


def _object(value: object) -> dict:
    return value if isinstance(value, dict) else {}
