"""Webhook deliveries from GitHub, GitLab, Gitea/Forgejo and any CI: authentication (constant
time, per-repository secret) and what a delivery announces."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from cartograph.webhooks import Unauthorized, WebhookError, authenticate, parse

SECRET = "s3cret-for-tests-only"
SHA = "a" * 40


def _sign(body: bytes, secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _push(ref: str = "refs/heads/main", after: str = SHA) -> bytes:
    return json.dumps({"ref": ref, "before": "b" * 40, "after": after}).encode()


def test_github_signature_and_push():
    body = _push()
    headers = {
        "x-hub-signature-256": "sha256=" + _sign(body),
        "x-github-event": "push",
        "x-github-delivery": "d-1",
    }
    authenticate("github", headers, body, SECRET)
    delivery = parse("github", headers, body, "main")
    assert (delivery.kind, delivery.sha, delivery.delivery_id, delivery.before) == (
        "push",
        SHA,
        "d-1",
        "b" * 40,
    )


@pytest.mark.parametrize(
    "signature",
    ["", "sha256=", "sha256=" + "0" * 64, "sha1=" + "0" * 40, "sha256=" + _sign(_push(), "other")],
)
def test_github_bad_or_missing_signature_is_401(signature):
    body = _push()
    headers = {"x-github-event": "push"}
    if signature:
        headers["x-hub-signature-256"] = signature
    with pytest.raises(Unauthorized):
        authenticate("github", headers, body, SECRET)


def test_a_signature_over_another_body_fails():
    headers = {"x-hub-signature-256": "sha256=" + _sign(_push())}
    with pytest.raises(Unauthorized):
        authenticate("github", headers, _push(after="c" * 40), SECRET)


def test_ping_untracked_branch_deleted_branch_and_other_events():
    assert parse("github", {"x-github-event": "ping"}, b"{}", "main").kind == "ping"
    other = parse("github", {"x-github-event": "push"}, _push("refs/heads/dev"), "main")
    assert other.kind == "ignored" and "not tracked" in other.reason
    tag = parse("github", {"x-github-event": "push"}, _push("refs/tags/v1"), "main")
    assert tag.kind == "ignored"
    deleted = parse("github", {"x-github-event": "push"}, _push(after="0" * 40), "main")
    assert deleted.kind == "ignored" and "deleted" in deleted.reason
    issue = parse("github", {"x-github-event": "issues"}, b"{}", "main")
    assert issue.kind == "ignored"


def test_gitlab_token():
    body = json.dumps({"ref": "refs/heads/main", "after": SHA, "checkout_sha": "c" * 40}).encode()
    headers = {
        "x-gitlab-token": SECRET,
        "x-gitlab-event": "Push Hook",
        "x-gitlab-event-uuid": "u-1",
    }
    authenticate("gitlab", headers, body, SECRET)
    delivery = parse("gitlab", headers, body, "main")
    assert (delivery.kind, delivery.sha, delivery.delivery_id) == ("push", "c" * 40, "u-1")
    with pytest.raises(Unauthorized):
        authenticate("gitlab", {"x-gitlab-token": SECRET + "x"}, body, SECRET)
    with pytest.raises(Unauthorized):
        authenticate("gitlab", {}, body, SECRET)


@pytest.mark.parametrize("header", ["x-gitea-signature", "x-forgejo-signature"])
def test_gitea_and_forgejo_signatures(header):
    body = _push()
    headers = {header: _sign(body), "x-gitea-event": "push", "x-gitea-delivery": "g-1"}
    authenticate("gitea", headers, body, SECRET)
    assert parse("gitea", headers, body, "main").sha == SHA
    with pytest.raises(Unauthorized):
        authenticate("gitea", {header: _sign(body, "nope")}, body, SECRET)


def test_generic_bearer_push():
    body = json.dumps({"sha": SHA.upper()}).encode()
    headers = {"authorization": f"Bearer {SECRET}", "x-delivery-id": "ci-7"}
    authenticate("generic", headers, body, SECRET)
    delivery = parse("generic", headers, body, "main")
    assert (delivery.kind, delivery.sha, delivery.ref) == ("push", SHA, "refs/heads/main")
    with pytest.raises(Unauthorized):
        authenticate("generic", {"authorization": "Bearer wrong"}, body, SECRET)
    with pytest.raises(Unauthorized):
        authenticate("generic", {"authorization": SECRET}, body, SECRET)


def test_hostile_payloads_are_400_not_crashes():
    headers = {"x-github-event": "push"}
    for body in (b"not json", b"[1, 2]", json.dumps({"ref": 5, "after": SHA}).encode()):
        with pytest.raises(WebhookError) as caught:
            parse("github", headers, body, "main")
        assert caught.value.status == 400
    with pytest.raises(WebhookError):
        parse("github", headers, _push(after="'; MATCH (n) DETACH DELETE n //"), "main")
    with pytest.raises(Unauthorized):
        authenticate("github", {}, b"", "")  # a repository without a secret takes nothing
