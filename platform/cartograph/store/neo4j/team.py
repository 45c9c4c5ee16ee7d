"""Agent sessions, claims, activity and lessons in the Neo4j store:
`(:AgentSession {id, agent, task, started_at, last_seen, ended_at})`,
`(:Claim {key, repo, path, session, intent, since, expires_at, version})` (one per path: `key`
is unique), `(:AgentSession)-[:READ|EDITED {at}]->(:File)` — or `->(:ActivityPath)` for a path
the index does not hold — and `(:Lesson {id, text, kind, session, agent, at, about})
-[:ABOUT]->(:File|:Symbol)`, and a session's overlay: `(:OverlayFile {session, repo, path,
content, sha256, size, at, gone})`, one per file it edited and has not pushed.

The store persists; `cartograph.agents` decides when a claim is free and which lessons apply.
A claim's compare-and-set is one statement: MERGE the path's Claim node (the unique key
serializes creators), write-lock it, and only then compare its version with the one read:
concurrent writers queue on the lock and each sees the previous one's outcome."""

from __future__ import annotations

import hashlib
from typing import Any

from cartograph.model import AgentSession, Claim, Lesson, OverlayFile, file_id
from cartograph.store.interfaces import StoredClaim, check_activity_kind
from cartograph.store.neo4j.connection import Neo4jConnection

_SESSION_RETURN = (
    "s.id AS id, s.agent AS agent, s.task AS task, s.started_at AS started_at, "
    "s.last_seen AS last_seen, s.ended_at AS ended_at, coalesce(s.owner, '') AS owner"
)
# a claim written before claims had versions reads as version 1 (as SQLite's migration sets)
_CLAIM_RETURN = (
    "c.repo AS repo, c.path AS path, c.session AS session, c.intent AS intent, "
    "c.since AS since, c.expires_at AS expires_at, coalesce(c.version, 1) AS version, "
    "h {.id, .agent, .task, .started_at, .last_seen, .ended_at, owner: coalesce(h.owner, '')} "
    "AS holder"
)
_LESSON_RETURN = (
    "l.id AS id, l.text AS text, l.kind AS kind, l.session AS session, l.agent AS agent, "
    "l.at AS at, l.about AS about"
)


def _session(record: Any) -> AgentSession:
    return AgentSession(
        record["id"],
        record["agent"],
        record["task"],
        record["started_at"],
        record["last_seen"],
        record["ended_at"],
        record["owner"],
    )


def _stored_claim(record: Any) -> StoredClaim:
    holder = _session(record["holder"]) if record["holder"] is not None else None
    claim = Claim(
        record["repo"],
        record["path"],
        record["session"],
        record["intent"],
        record["since"],
        record["expires_at"],
        holder.agent if holder else "",
        holder.task if holder else "",
    )
    return StoredClaim(claim, record["version"], holder)


def _lesson(record: Any) -> Lesson:
    return Lesson(
        record["id"],
        record["text"],
        record["kind"],
        record["session"],
        record["agent"],
        record["at"],
        list(record["about"] or []),
    )


def _key(repo: str, path: str) -> str:
    """A claim's unique key: the file's id (`repo:path`; a repository name never holds `:`,
    so no two files share one)."""
    return file_id(repo, path)


class Neo4jTeam:
    def __init__(self, connection: Neo4jConnection) -> None:
        self.connection = connection
        self.read = connection.read

    # ---------------------------------------------------------------- sessions
    def create_session(self, agent: str, task: str, at: str, owner: str = "") -> AgentSession:
        def work(tx: Any) -> Any:
            return tx.run(
                "MERGE (k:CartographMeta {key: 'agent_session_seq'}) "
                "SET k.n = coalesce(k.n, 0) + 1 "
                "CREATE (s:AgentSession {id: k.n, agent: $agent, task: $task, "
                "started_at: $at, last_seen: $at, ended_at: '', owner: $owner}) "
                f"RETURN {_SESSION_RETURN}",
                agent=agent,
                task=task,
                at=at,
                owner=owner,
            ).single()

        return _session(self.connection.write(work, answers_change=False))

    def get_session(self, session_id: int) -> AgentSession | None:
        records = self.read(
            f"MATCH (s:AgentSession {{id: $id}}) RETURN {_SESSION_RETURN}", id=session_id
        )
        return _session(records[0]) if records else None

    def live_sessions(self, seen_since: str) -> list[AgentSession]:
        records = self.read(
            "MATCH (s:AgentSession) WHERE coalesce(s.ended_at, '') = '' AND s.last_seen >= $since "
            f"RETURN {_SESSION_RETURN} ORDER BY last_seen DESC, id DESC",
            since=seen_since,
        )
        return [_session(r) for r in records]

    def touch_session(self, session_id: int, at: str) -> None:
        self.connection.run(
            "MATCH (s:AgentSession {id: $id}) SET s.last_seen = $at",
            id=session_id,
            at=at,
            answers_change=False,
        )

    def end_session(self, session_id: int, at: str) -> None:
        self.connection.run(
            "MATCH (s:AgentSession {id: $id}) SET s.ended_at = $at "
            "WITH s MATCH (c:Claim {session: s.id}) DELETE c",
            id=session_id,
            at=at,
            answers_change=False,
        )
        self.drop_overlay(session_id)

    # ---------------------------------------------------------------- overlays
    def put_overlay(
        self, session: int, repo: str, path: str, content: bytes | None, at: str
    ) -> OverlayFile:
        sha = hashlib.sha256(content).hexdigest() if content is not None else ""
        size = len(content) if content is not None else 0
        self.connection.run(
            "MERGE (o:OverlayFile {session: $session, repo: $repo, path: $path}) "
            "SET o.content = $content, o.sha256 = $sha, o.size = $size, o.at = $at, "
            "o.gone = $gone",
            session=session,
            repo=repo,
            path=path,
            content=content,
            sha=sha,
            size=size,
            at=at,
            gone=content is None,
            answers_change=False,
        )
        return OverlayFile(session, repo, path, sha, size, at, content is None)

    def overlay_files(self, session: int) -> list[OverlayFile]:
        records = self.read(
            "MATCH (o:OverlayFile {session: $session}) RETURN o.session AS session, "
            "o.repo AS repo, o.path AS path, o.sha256 AS sha256, o.size AS size, o.at AS at, "
            "o.gone AS gone ORDER BY repo, path",
            session=session,
        )
        return [
            OverlayFile(
                r["session"], r["repo"], r["path"], r["sha256"], r["size"], r["at"], r["gone"]
            )
            for r in records
        ]

    def overlay_contents(self, session: int) -> dict[tuple[str, str], bytes | None]:
        records = self.read(
            "MATCH (o:OverlayFile {session: $session}) "
            "RETURN o.repo AS repo, o.path AS path, o.content AS content",
            session=session,
        )
        return {
            (r["repo"], r["path"]): bytes(r["content"]) if r["content"] is not None else None
            for r in records
        }

    def drop_overlay(self, session: int) -> int:
        query = "MATCH (o:OverlayFile {session: $session}) DELETE o RETURN count(*) AS n"
        return int(
            self.connection.write(
                lambda tx: tx.run(query, session=session).single()[0], answers_change=False
            )
        )

    def drop_stale_overlays(self, seen_before: str) -> int:
        query = (
            "MATCH (o:OverlayFile) OPTIONAL MATCH (s:AgentSession {id: o.session}) "
            "WITH o, s WHERE s IS NULL OR s.ended_at <> '' OR s.last_seen < $before "
            "DELETE o RETURN count(*) AS n"
        )
        return int(
            self.connection.write(
                lambda tx: tx.run(query, before=seen_before).single()[0], answers_change=False
            )
        )

    # ---------------------------------------------------------------- claims
    def current_claim(self, repo: str, path: str) -> StoredClaim | None:
        records = self.read(
            "MATCH (c:Claim {key: $key}) WHERE c.session IS NOT NULL "
            "OPTIONAL MATCH (h:AgentSession {id: c.session}) "
            f"RETURN {_CLAIM_RETURN}",
            key=_key(repo, path),
        )
        return _stored_claim(records[0]) if records else None

    def put_claim(self, claim: Claim, expected: int | None) -> bool:
        def work(tx: Any) -> bool:
            record = tx.run(
                # a node MERGE creates is version 0: "absent"; the comparison is made after
                # SET takes the node's write lock, so it sees the last committed claim
                "MERGE (c:Claim {key: $key}) ON CREATE SET c.version = 0 "
                "SET c._lock = true "
                "WITH c, coalesce(c.version, 1) = $expected AS fresh "
                "FOREACH (_ IN CASE WHEN fresh THEN [1] ELSE [] END | "
                "SET c.repo = $repo, c.path = $path, c.session = $session, "
                "c.intent = $intent, c.since = $since, c.expires_at = $expires, "
                "c.version = $expected + 1) "
                "REMOVE c._lock "
                "WITH c, fresh "
                # lost a race against a release: leave no empty node behind
                "FOREACH (_ IN CASE WHEN c.version = 0 THEN [1] ELSE [] END | DELETE c) "
                "RETURN fresh",
                key=_key(claim.repo, claim.path),
                repo=claim.repo,
                path=claim.path,
                session=claim.session,
                intent=claim.intent,
                since=claim.since,
                expires=claim.expires_at,
                expected=expected or 0,
            ).single()
            return bool(record["fresh"])

        return self.connection.write(work, answers_change=False)

    def renew_claims(self, session: int, expires_at: str) -> int:
        def work(tx: Any) -> int:
            record = tx.run(
                "MATCH (c:Claim {session: $session}) WHERE c.expires_at < $expires "
                "SET c.expires_at = $expires, c.version = coalesce(c.version, 1) + 1 "
                "RETURN count(c) AS n",
                session=session,
                expires=expires_at,
            ).single()
            return int(record["n"])

        return self.connection.write(work, answers_change=False)

    def release_path(self, repo: str, path: str, session: int) -> bool:
        def work(tx: Any) -> bool:
            record = tx.run(
                "MATCH (c:Claim {key: $key}) WHERE c.session = $session "
                "DELETE c RETURN count(*) AS n",
                key=_key(repo, path),
                session=session,
            ).single()
            return record["n"] == 1

        return self.connection.write(work, answers_change=False)

    def claims(self, repo: str | None) -> list[StoredClaim]:
        records = self.read(
            "MATCH (c:Claim) WHERE ($repo IS NULL OR c.repo = $repo) AND c.session IS NOT NULL "
            "OPTIONAL MATCH (h:AgentSession {id: c.session}) "
            f"RETURN {_CLAIM_RETURN} ORDER BY repo, path",
            repo=repo,
        )
        return [_stored_claim(r) for r in records]

    # ---------------------------------------------------------------- activity
    def record_activity(self, session: int, repo: str, path: str, kind: str, at: str) -> bool:
        check_activity_kind(kind)  # also keeps the Cypher relationship type a known one

        def work(tx: Any) -> bool:
            record = tx.run(
                "MATCH (s:AgentSession {id: $session}) "
                "OPTIONAL MATCH (f:File {id: $file}) WHERE NOT f:Stub "
                "FOREACH (_ IN CASE WHEN f IS NULL THEN [] ELSE [1] END | "
                f"MERGE (s)-[r:{kind}]->(f) SET r.at = $at) "
                # a path the index does not hold (yet): its own bookkeeping node
                "FOREACH (_ IN CASE WHEN f IS NULL THEN [1] ELSE [] END | "
                "MERGE (p:ActivityPath {id: $file}) ON CREATE SET p.repo = $repo, p.path = $path "
                f"MERGE (s)-[r:{kind}]->(p) SET r.at = $at) "
                "RETURN count(s) AS n",
                session=session,
                file=file_id(repo, path),
                repo=repo,
                path=path,
                at=at,
            ).single()
            return record is not None and record["n"] == 1

        return self.connection.write(work, answers_change=False)

    def session_activity(self, session: int) -> list[tuple[str, str, str, str]]:
        records = self.read(
            "MATCH (:AgentSession {id: $session})-[r:READ|EDITED]->(f:File|ActivityPath) "
            "RETURN f.repo AS repo, f.path AS path, type(r) AS kind, r.at AS at "
            "ORDER BY at, path",
            session=session,
        )
        latest: dict[tuple[str, str, str], str] = {}  # one per path and kind, as in SQLite
        for r in records:
            latest[(r["repo"], r["path"], r["kind"])] = r["at"]
        return sorted(
            ((repo, path, kind, at) for (repo, path, kind), at in latest.items()),
            key=lambda row: (row[3], row[1]),
        )

    # ---------------------------------------------------------------- lessons
    def add_lesson(
        self, session: int, agent: str, text: str, kind: str, about: list[str], at: str
    ) -> Lesson:
        def work(tx: Any) -> Any:
            return tx.run(
                "MERGE (k:CartographMeta {key: 'lesson_seq'}) SET k.n = coalesce(k.n, 0) + 1 "
                "CREATE (l:Lesson {id: k.n, text: $text, kind: $kind, session: $session, "
                "agent: $agent, at: $at, about: $about}) "
                "WITH l UNWIND (CASE WHEN size($about) = 0 THEN [null] ELSE $about END) AS t "
                "OPTIONAL MATCH (x) WHERE (x:Symbol AND x.id = t) OR (x:File AND x.id = t) "
                "FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END | "
                "MERGE (l)-[:ABOUT]->(x)) "
                f"WITH DISTINCT l RETURN {_LESSON_RETURN}",
                text=text,
                kind=kind,
                session=session,
                agent=agent,
                at=at,
                about=about,
            ).single()

        return _lesson(self.connection.write(work))

    def find_lessons(self, keys: list[str], words: list[str], limit: int) -> list[Lesson]:
        records = self.read(
            "MATCH (l:Lesson) "
            "WHERE (size($keys) = 0 OR any(a IN l.about WHERE a IN $keys)) "
            "AND all(w IN $words WHERE toLower(l.text) CONTAINS w) "
            f"RETURN {_LESSON_RETURN} ORDER BY at DESC, id DESC LIMIT $limit",
            keys=keys,
            words=[w.lower() for w in words],
            limit=limit,
        )
        return [_lesson(r) for r in records]
