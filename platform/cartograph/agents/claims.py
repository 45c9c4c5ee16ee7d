"""When a claim is in force, and taking one: the rule, once, over the store's compare-and-set
(`TeamStore.current_claim` / `TeamStore.put_claim`).

A stored claim is in force while it has not expired (`expires_at` ahead) and the session that
holds it is alive (not ended, heard from within the session TTL). A path is free for a session
when no claim is in force on it, or the claim in force is its own (claiming again renews it and
keeps its `since`)."""

from __future__ import annotations

from cartograph.errors import Unavailable
from cartograph.model import AgentSession, Claim
from cartograph.store.interfaces import StoredClaim, TeamStore

# a compare-and-set lost to another writer is retried on what that writer left; each loss
# means someone else's write landed, so a few suffice even with many claimers
MAX_ATTEMPTS = 20


def in_force(stored: StoredClaim, now: str, alive_after: str) -> bool:
    """The claim holds its path: unexpired, and its session alive."""
    holder = stored.holder
    return (
        stored.claim.expires_at > now
        and holder is not None
        and not holder.ended_at
        and holder.last_seen > alive_after
    )


def take(
    team: TeamStore,
    session: AgentSession,
    repo: str,
    path: str,
    intent: str,
    now: str,
    expires_at: str,
    alive_after: str,
) -> tuple[bool, Claim]:
    """Claim a path for a session unless another live session holds it: (granted, the claim
    in force — ours when granted, the holder's otherwise). Atomic across processes: of any
    number of concurrent claimers of a free path exactly one is granted it."""
    for _ in range(MAX_ATTEMPTS):
        stored = team.current_claim(repo, path)
        active = stored is not None and in_force(stored, now, alive_after)
        if stored is not None and active and stored.claim.session != session.id:
            return False, stored.claim
        renewing = stored is not None and active  # our own claim, still in force
        claim = Claim(
            repo,
            path,
            session.id,
            intent,
            stored.claim.since if stored is not None and renewing else now,
            expires_at,
            session.agent,
            session.task,
        )
        if team.put_claim(claim, stored.version if stored is not None else None):
            return True, claim
    raise Unavailable(f"{path} changed hands {MAX_ATTEMPTS} times while claiming it: try again")


def active_claims(stored: list[StoredClaim], now: str, alive_after: str) -> list[Claim]:
    """The claims in force among those stored."""
    return [s.claim for s in stored if in_force(s, now, alive_after)]
