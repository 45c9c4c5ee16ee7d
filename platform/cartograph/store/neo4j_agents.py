"""Agent sessions, claims, activity and lessons in the Neo4j store:
`(:AgentSession {id, agent, task, started_at, last_seen, ended_at})`,
`(:Claim {key, repo, path, session, intent, since, expires_at})` (one per path: `key` is unique),
`(:AgentSession)-[:READ|EDITED {at}]->(:File)`, and
`(:Lesson {id, text, kind, session, agent, at, about})-[:ABOUT]->(:File|:Symbol)`.

A claim is one Cypher statement: MERGE the path's Claim node (the unique key serializes
creators), write-lock it, then take it only when it is free (no holder, expired, its session
ended or silent) or already ours. Concurrent claimers queue on the lock and each sees the
previous one's outcome, so exactly one holds the path."""

from __future__ import annotations

from cartograph.model import AgentSession, Claim, Lesson, file_id

_SESSION_RETURN = (
    "s.id AS id, s.agent AS agent, s.task AS task, s.started_at AS started_at, "
    "s.last_seen AS last_seen, s.ended_at AS ended_at"
)
_CLAIM_RETURN = (
    "c.repo AS repo, c.path AS path, c.session AS session, c.intent AS intent, "
    "c.since AS since, c.expires_at AS expires_at, h.agent AS agent, h.task AS task"
)


def _session(record) -> AgentSession:
    return AgentSession(
        record["id"],
        record["agent"],
        record["task"],
        record["started_at"],
        record["last_seen"],
        record["ended_at"],
    )


def _claim(record) -> Claim:
    return Claim(
        record["repo"],
        record["path"],
        record["session"],
        record["intent"],
        record["since"],
        record["expires_at"],
        record["agent"] or "",
        record["task"] or "",
    )


def _lesson(record) -> Lesson:
    return Lesson(
        record["id"],
        record["text"],
        record["kind"],
        record["session"],
        record["agent"],
        record["at"],
        list(record["about"] or []),
    )


class Neo4jAgents:
    """Mixed into Neo4jStore (which provides `_read` and `_write`)."""

    def create_session(self, agent: str, task: str, at: str) -> AgentSession:
        def work(tx):
            return tx.run(
                "MERGE (k:CartographMeta {key: 'agent_session_seq'}) "
                "SET k.n = coalesce(k.n, 0) + 1 "
                "CREATE (s:AgentSession {id: k.n, agent: $agent, task: $task, "
                "started_at: $at, last_seen: $at, ended_at: ''}) "
                f"RETURN {_SESSION_RETURN}",
                agent=agent,
                task=task,
                at=at,
            ).single()

        return _session(self._write(work))

    def get_session(self, session_id: int) -> AgentSession | None:
        records = self._read(
            f"MATCH (s:AgentSession {{id: $id}}) RETURN {_SESSION_RETURN}", id=session_id
        )
        return _session(records[0]) if records else None

    def touch_session(self, session_id: int, at: str) -> None:
        self._write(
            lambda tx: tx.run(
                "MATCH (s:AgentSession {id: $id}) SET s.last_seen = $at", id=session_id, at=at
            ).consume()
        )

    def end_session(self, session_id: int, at: str) -> None:
        self._write(
            lambda tx: tx.run(
                "MATCH (s:AgentSession {id: $id}) SET s.ended_at = $at "
                "WITH s MATCH (c:Claim {session: s.id}) DELETE c",
                id=session_id,
                at=at,
            ).consume()
        )

    def claim_path(
        self,
        repo: str,
        path: str,
        session: int,
        intent: str,
        now: str,
        expires_at: str,
        alive_after: str,
    ) -> Claim:
        def work(tx):
            return tx.run(
                "MERGE (c:Claim {key: $key}) "
                "ON CREATE SET c.repo = $repo, c.path = $path, c.session = $session, "
                "c.intent = $intent, c.since = $now, c.expires_at = $expires "
                "SET c._lock = true "
                "WITH c OPTIONAL MATCH (h:AgentSession {id: c.session}) "
                "WITH c, (c.session = $session OR c.expires_at <= $now OR h IS NULL "
                "OR h.ended_at <> '' OR h.last_seen <= $alive) AS free "
                "FOREACH (_ IN CASE WHEN free THEN [1] ELSE [] END | "
                "SET c.since = CASE WHEN c.session = $session THEN c.since ELSE $now END, "
                "c.session = $session, c.intent = $intent, c.expires_at = $expires) "
                "REMOVE c._lock "
                "WITH c MATCH (h:AgentSession {id: c.session}) "
                f"RETURN {_CLAIM_RETURN}",
                key=f"{repo}\n{path}",
                repo=repo,
                path=path,
                session=session,
                intent=intent,
                now=now,
                expires=expires_at,
                alive=alive_after,
            ).single()

        return _claim(self._write(work))

    def release_path(self, repo: str, path: str, session: int) -> bool:
        def work(tx):
            record = tx.run(
                "MATCH (c:Claim {key: $key}) WHERE c.session = $session "
                "DELETE c RETURN count(*) AS n",
                key=f"{repo}\n{path}",
                session=session,
            ).single()
            return record["n"] == 1

        return self._write(work)

    def list_claims(self, repo: str | None, now: str, alive_after: str) -> list[Claim]:
        records = self._read(
            "MATCH (c:Claim) WHERE ($repo IS NULL OR c.repo = $repo) AND c.expires_at > $now "
            "MATCH (h:AgentSession {id: c.session}) "
            "WHERE h.ended_at = '' AND h.last_seen > $alive "
            f"RETURN {_CLAIM_RETURN} ORDER BY repo, path",
            repo=repo,
            now=now,
            alive=alive_after,
        )
        return [_claim(r) for r in records]

    def record_activity(self, session: int, repo: str, path: str, kind: str, at: str) -> bool:
        if kind not in ("READ", "EDITED"):
            raise ValueError(f"activity {kind!r}: READ or EDITED")

        def work(tx):
            record = tx.run(
                f"MATCH (s:AgentSession {{id: $session}}), (f:File {{id: $file}}) "
                f"MERGE (s)-[r:{kind}]->(f) SET r.at = $at RETURN count(r) AS n",
                session=session,
                file=file_id(repo, path),
                at=at,
            ).single()
            return record is not None and record["n"] == 1

        return self._write(work)

    def session_activity(self, session: int) -> list[tuple[str, str, str, str]]:
        records = self._read(
            "MATCH (:AgentSession {id: $session})-[r:READ|EDITED]->(f:File) "
            "RETURN f.repo AS repo, f.path AS path, type(r) AS kind, r.at AS at "
            "ORDER BY at, path",
            session=session,
        )
        return [(r["repo"], r["path"], r["kind"], r["at"]) for r in records]

    def add_lesson(
        self, session: int, agent: str, text: str, kind: str, about: list[str], at: str
    ) -> Lesson:
        def work(tx):
            return tx.run(
                "MERGE (k:CartographMeta {key: 'lesson_seq'}) SET k.n = coalesce(k.n, 0) + 1 "
                "CREATE (l:Lesson {id: k.n, text: $text, kind: $kind, session: $session, "
                "agent: $agent, at: $at, about: $about}) "
                "WITH l UNWIND (CASE WHEN size($about) = 0 THEN [null] ELSE $about END) AS t "
                "OPTIONAL MATCH (x) WHERE (x:Symbol AND x.id = t) OR (x:File AND x.id = t) "
                "FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END | "
                "MERGE (l)-[:ABOUT]->(x)) "
                "WITH DISTINCT l RETURN l.id AS id, l.text AS text, l.kind AS kind, "
                "l.session AS session, l.agent AS agent, l.at AS at, l.about AS about",
                text=text,
                kind=kind,
                session=session,
                agent=agent,
                at=at,
                about=about,
            ).single()

        return _lesson(self._write(work))

    def find_lessons(self, about: list[str], text: str, limit: int) -> list[Lesson]:
        words = [w.lower() for w in text.split()]
        records = self._read(
            "MATCH (l:Lesson) "
            "WHERE (size($about) = 0 OR any(a IN l.about WHERE a IN $about OR "
            "(a ENDS WITH '/' AND any(t IN $about WHERE t STARTS WITH a OR "
            "t CONTAINS (':' + a))))) "
            "AND all(w IN $words WHERE toLower(l.text) CONTAINS w) "
            "RETURN l.id AS id, l.text AS text, l.kind AS kind, l.session AS session, "
            "l.agent AS agent, l.at AS at, l.about AS about "
            "ORDER BY at DESC, id DESC LIMIT $limit",
            about=about,
            words=words,
            limit=limit,
        )
        return [_lesson(r) for r in records]
