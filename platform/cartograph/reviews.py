"""Pull requests of tracked repositories: a signed webhook announces a head; its impact
against the merge base is computed in the mirror and stored (a newer head replaces it), and —
when the repository is configured to — posted to the forge as a comment and a commit status. A
failure to post is recorded on the report and never loses it."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from cartograph.errors import CartographError, Invalid, NotFound
from cartograph.forge import ForgeTarget, post_report
from cartograph.gitremote import redact
from cartograph.impact.report import Impact, impact_of
from cartograph.impact.source import change_between
from cartograph.impact.text import markdown
from cartograph.indexedfiles import Git
from cartograph.jobs import JobRunner
from cartograph.model import Review, TrackedRepo
from cartograph.pushes import start_or_forget, tracked_for_push
from cartograph.safetext import md
from cartograph.sealing import seal, unseal
from cartograph.store.interfaces import Store
from cartograph.sync import Mirror, SyncError, now
from cartograph.webhooks import Delivery
from cartograph.weburls import credential_url_problem

log = logging.getLogger("cartograph.reviews")
FORGES = ("github", "gitlab")
DEFAULT_FORGE_URLS = {"github": "https://api.github.com", "gitlab": "https://gitlab.com/api/v4"}
MAX_REVIEWS = 100


@dataclass(slots=True)
class ForgeSettings:
    """What `repo forge` answers: where reports are posted (never the token)."""

    name: str
    forge: str
    forge_url: str
    forge_project: str
    token_set: bool


def accept_pull_request(store: Store, repo: str, delivery: Delivery) -> bool:
    """Record a pull request's announced head (its report to be computed); False when this
    delivery was received before, or the head already has its report."""
    if delivery.delivery_id and not store.tracking.record_delivery(repo, delivery.delivery_id):
        return False
    known = store.impact.get_review(repo, delivery.number)
    if known is not None and known.head_sha == delivery.sha and known.computed_at:
        return False
    tracked = tracked_for_push(store, repo)
    store.impact.put_review(
        Review(
            repo,
            delivery.number,
            delivery.sha,
            base_ref=delivery.ref.removeprefix("refs/heads/"),
            title=delivery.title,
            forge=tracked.forge,
            # the comment posted for an older head: edited in place by this head's report
            comment_id=known.comment_id if known else "",
            comment_url=known.comment_url if known else "",
        )
    )
    return True


def queue_pull_request(store: Store, runner: JobRunner, repo: str, delivery: Delivery) -> bool:
    """Record a pull request's head and queue the job computing its report: False when there
    is nothing to do (a redelivery, or a head that has its report already)."""
    if not accept_pull_request(store, repo, delivery):
        return False
    start_or_forget(
        store,
        repo,
        delivery,
        lambda: runner.review(repo, delivery.number),
        f"the report of {repo} #{delivery.number}",
    )
    return True


def review_pull_request(store: Store, repo: str, number: int, data_dir: Path) -> Review:
    """Compute (and, when configured, post) the report of a pull request's recorded head."""
    pending = store.impact.get_review(repo, number)
    if pending is None:
        raise NotFound(f"no pull request {number} of {repo} was announced")
    tracked = tracked_for_push(store, repo)
    mirror = Mirror(data_dir, repo, tracked.url)
    base_branch = pending.base_ref or tracked.branch
    try:
        mirror.fetch()
        git = Git(mirror.git_dir)
        if git.commit(pending.head_sha) is None:
            _fetch_pull_head(mirror, tracked, number)
        answer: Impact | None = impact_of(
            store,
            change_between(store, repo, f"refs/heads/{base_branch}", pending.head_sha, data_dir),
        )
        error = ""
    except (CartographError, SyncError) as exc:
        answer, error = None, redact(str(exc))
        log.warning("pull request impact failed", extra={"repo": repo, "number": number})
    current = store.impact.get_review(repo, number)
    if current is not None and current.head_sha != pending.head_sha:
        return current  # a newer head was announced meanwhile: its own job reports it
    review = replace(pending, computed_at=now(), error=error)
    headline = error
    if answer is not None:
        # what decides the verdict leads (a status description is short)
        deciding = [line for line in answer.summary if line.startswith(("WILL BREAK", "UNKNOWN"))]
        headline = deciding[0] if deciding else "; ".join(answer.summary[1:3]) or answer.summary[0]
        answer.format = "markdown"
        review.base_sha = answer.base
        review.verdict = answer.verdict
        review.report = json.dumps(asdict(answer), ensure_ascii=False)
        review.markdown = markdown(answer)
    review = _post(tracked, review, current, headline)
    store.impact.put_review(review)
    return review


def _fetch_pull_head(mirror: Mirror, tracked: TrackedRepo, number: int) -> None:
    """A pull request from a fork: its head is fetched by the forge's own ref for it."""
    ref = (
        f"refs/merge-requests/{number}/head"
        if tracked.forge == "gitlab"
        else f"refs/pull/{number}/head"
    )
    Git(mirror.git_dir).run("fetch", "--quiet", "origin", f"+{ref}:{ref}", check=False)


# the commit status of a verdict (any other: success)
STATUS_OF_VERDICT = {"breaking": "failure", "": "error"}


def _post(tracked: TrackedRepo, review: Review, previous: Review | None, headline: str) -> Review:
    """The report as a comment (edited in place on a new head) and a commit status: failure
    when something will break, error when the impact could not be computed, success
    otherwise — "unknown" too, with its reason in the description: a commit status has no
    neutral state, and a neutral check passes a required check the same way."""
    if not tracked.forge or not tracked.forge_token:
        return review
    state = STATUS_OF_VERDICT.get(review.verdict, "success")
    target = ForgeTarget(
        tracked.forge, tracked.forge_url, unseal(tracked.forge_token), tracked.forge_project
    )
    try:
        posted = post_report(
            target,
            review.number,
            review.head_sha,
            review.markdown or f"Cartograph could not compute the impact: {md(review.error)}",
            state,
            f"{review.verdict or 'not computed'}: {headline}",
            previous_comment_id=previous.comment_id if previous else "",
        )
    except ValueError as exc:  # the settings are wrong: recorded, the report kept
        return replace(review, post_error=str(exc))
    return replace(
        review,
        posted_at=now(),
        post_error=posted.error,
        comment_id=posted.comment_id or (previous.comment_id if previous else ""),
        comment_url=posted.comment_url or (previous.comment_url if previous else ""),
    )


# ---------------------------------------------------------------- answers of the catalogue


def get_review(store: Store, repo: str, number: int) -> Review:
    found = store.impact.get_review(repo, number)
    if found is None:
        raise NotFound(f"no report of pull request {number} of {repo}")
    return found


def list_reviews(store: Store, repo: str, limit: int = 20) -> list[Review]:
    return store.impact.reviews(repo, min(limit, MAX_REVIEWS))


def set_forge(
    store: Store,
    name: str,
    forge: str,
    project: str | None = None,
    token: str | None = None,
    url: str | None = None,
) -> ForgeSettings:
    """Where a tracked repository's pull-request reports are posted (`none`: nowhere)."""
    tracked = tracked_for_push(store, name)
    if forge == "none":
        store.tracking.update_tracked(
            name, forge="", forge_url="", forge_project="", forge_token=""
        )
        return ForgeSettings(name, "", "", "", False)
    if forge not in FORGES:
        raise Invalid(f"forge is one of {', '.join(FORGES)} or none")
    if not project or not token:
        raise Invalid("posting needs the project (owner/name, or GitLab's path) and a token")
    base = (url or DEFAULT_FORGE_URLS[forge]).rstrip("/")
    problem = credential_url_problem(base, "the forge's API URL")
    if problem:
        raise Invalid(problem)
    store.tracking.update_tracked(
        tracked.name, forge=forge, forge_url=base, forge_project=project, forge_token=seal(token)
    )
    return ForgeSettings(name, forge, base, project, True)
