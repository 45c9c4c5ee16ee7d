"""Agent sessions, claims, activity and lessons in the SQLite store (schema version 5; claim
versions since 8). The store persists; `cartograph.agents` decides when a claim is free and
which lessons apply to a path. A claim's compare-and-set runs in one write transaction
(BEGIN IMMEDIATE), so concurrent writers serialize and each sees the one before."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from cartograph.model import AgentSession, Claim, Lesson, OverlayFile
from cartograph.store.interfaces import StoredClaim, check_activity_kind
from cartograph.store.sqlite.connection import SQLiteConnection

_SESSION_COLUMNS = "id, agent, task, started_at, last_seen, ended_at, owner"
_CLAIM_SELECT = (
    "SELECT c.repo, c.path, c.session, c.intent, c.since, c.expires_at, c.version, "
    "s.id, s.agent, s.task, s.started_at, s.last_seen, s.ended_at, s.owner "
    "FROM claims c LEFT JOIN agent_sessions s ON s.id = c.session "
)


def _stored_claim(row: Sequence) -> StoredClaim:
    holder = AgentSession(*row[7:14]) if row[7] is not None else None
    claim = Claim(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        holder.agent if holder else "",
        holder.task if holder else "",
    )
    return StoredClaim(claim, row[6], holder)


class SQLiteTeam:
    def __init__(self, connection: SQLiteConnection) -> None:
        self.connection = connection
        self.db = connection.db

    # ---------------------------------------------------------------- sessions
    def create_session(self, agent: str, task: str, at: str, owner: str = "") -> AgentSession:
        with self.connection.transaction(answers_change=False) as db:
            session_id = db.execute(
                "INSERT INTO agent_sessions (agent, task, started_at, last_seen, owner) "
                "VALUES (?,?,?,?,?)",
                (agent, task, at, at, owner),
            ).lastrowid
        return AgentSession(int(session_id or 0), agent, task, at, at, "", owner)

    def get_session(self, session_id: int) -> AgentSession | None:
        row = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM agent_sessions WHERE id = ?", (session_id,)
        ).fetchone()
        return AgentSession(*row) if row else None

    def live_sessions(self, seen_since: str) -> list[AgentSession]:
        rows = self.db.execute(
            f"SELECT {_SESSION_COLUMNS} FROM agent_sessions WHERE ended_at = '' AND last_seen >= ? "
            "ORDER BY last_seen DESC, id DESC",
            (seen_since,),
        )
        return [AgentSession(*row) for row in rows]

    def touch_session(self, session_id: int, at: str) -> None:
        with self.connection.transaction(answers_change=False) as db:
            db.execute("UPDATE agent_sessions SET last_seen = ? WHERE id = ?", (at, session_id))

    def end_session(self, session_id: int, at: str) -> None:
        with self.connection.transaction(answers_change=False) as db:
            db.execute("UPDATE agent_sessions SET ended_at = ? WHERE id = ?", (at, session_id))
            db.execute("DELETE FROM claims WHERE session = ?", (session_id,))
            db.execute("DELETE FROM overlay_files WHERE session = ?", (session_id,))

    # ---------------------------------------------------------------- overlays
    def put_overlay(
        self, session: int, repo: str, path: str, content: bytes | None, at: str
    ) -> OverlayFile:
        sha = hashlib.sha256(content).hexdigest() if content is not None else ""
        size = len(content) if content is not None else 0
        with self.connection.transaction(answers_change=False) as db:
            db.execute(
                "INSERT OR REPLACE INTO overlay_files "
                "(session, repo, path, content, sha256, size, at) VALUES (?,?,?,?,?,?,?)",
                (session, repo, path, content, sha, size, at),
            )
        return OverlayFile(session, repo, path, sha, size, at, content is None)

    def overlay_files(self, session: int) -> list[OverlayFile]:
        rows = self.db.execute(
            "SELECT session, repo, path, sha256, size, at, content IS NULL FROM overlay_files "
            "WHERE session = ? ORDER BY repo, path",
            (session,),
        )
        return [
            OverlayFile(row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6]))
            for row in rows
        ]

    def overlay_contents(self, session: int) -> dict[tuple[str, str], bytes | None]:
        rows = self.db.execute(
            "SELECT repo, path, content FROM overlay_files WHERE session = ?", (session,)
        )
        return {(repo, path): content for repo, path, content in rows}

    def drop_overlay(self, session: int) -> int:
        with self.connection.transaction(answers_change=False) as db:
            return db.execute("DELETE FROM overlay_files WHERE session = ?", (session,)).rowcount

    def drop_stale_overlays(self, seen_before: str) -> int:
        with self.connection.transaction(answers_change=False) as db:
            return db.execute(
                "DELETE FROM overlay_files WHERE session IN (SELECT id FROM agent_sessions "
                "WHERE ended_at != '' OR last_seen < ?) "
                "OR session NOT IN (SELECT id FROM agent_sessions)",
                (seen_before,),
            ).rowcount

    # ---------------------------------------------------------------- claims
    def current_claim(self, repo: str, path: str) -> StoredClaim | None:
        row = self.db.execute(
            _CLAIM_SELECT + "WHERE c.repo = ? AND c.path = ?", (repo, path)
        ).fetchone()
        return _stored_claim(row) if row else None

    def put_claim(self, claim: Claim, expected: int | None) -> bool:
        with self.connection.transaction(answers_change=False) as db:
            row = db.execute(
                "SELECT version FROM claims WHERE repo = ? AND path = ?", (claim.repo, claim.path)
            ).fetchone()
            stored = row[0] if row else None
            if stored != expected:
                return False
            db.execute(
                "INSERT OR REPLACE INTO claims "
                "(repo, path, session, intent, since, expires_at, version) VALUES (?,?,?,?,?,?,?)",
                (
                    claim.repo,
                    claim.path,
                    claim.session,
                    claim.intent,
                    claim.since,
                    claim.expires_at,
                    (expected or 0) + 1,
                ),
            )
            return True

    def renew_claims(self, session: int, expires_at: str) -> int:
        with self.connection.transaction(answers_change=False) as db:
            return db.execute(
                "UPDATE claims SET expires_at = ?, version = version + 1 "
                "WHERE session = ? AND expires_at < ?",
                (expires_at, session, expires_at),
            ).rowcount

    def release_path(self, repo: str, path: str, session: int) -> bool:
        with self.connection.transaction(answers_change=False) as db:
            deleted = db.execute(
                "DELETE FROM claims WHERE repo = ? AND path = ? AND session = ?",
                (repo, path, session),
            ).rowcount
        return deleted == 1

    def claims(self, repo: str | None) -> list[StoredClaim]:
        where, params = ("WHERE c.repo = ? ", [repo]) if repo is not None else ("", [])
        rows = self.db.execute(_CLAIM_SELECT + where + "ORDER BY c.repo, c.path", params)
        return [_stored_claim(row) for row in rows]

    # ---------------------------------------------------------------- activity
    def record_activity(self, session: int, repo: str, path: str, kind: str, at: str) -> bool:
        check_activity_kind(kind)
        with self.connection.transaction(answers_change=False) as db:
            written = db.execute(
                "INSERT OR REPLACE INTO activity SELECT ?, ?, ?, ?, ? "
                "WHERE EXISTS (SELECT 1 FROM agent_sessions WHERE id = ?)",
                (session, repo, path, kind, at, session),
            ).rowcount
        return written == 1

    def session_activity(self, session: int) -> list[tuple[str, str, str, str]]:
        return [
            (row[0], row[1], row[2], row[3])
            for row in self.db.execute(
                "SELECT repo, path, kind, at FROM activity WHERE session = ? ORDER BY at, path",
                (session,),
            )
        ]

    # ---------------------------------------------------------------- lessons
    def add_lesson(
        self, session: int, agent: str, text: str, kind: str, about: list[str], at: str
    ) -> Lesson:
        with self.connection.transaction() as db:
            lesson_id = db.execute(
                "INSERT INTO lessons (session, agent, text, kind, at) VALUES (?,?,?,?,?)",
                (session, agent, text, kind, at),
            ).lastrowid
            db.executemany(
                "INSERT OR IGNORE INTO lesson_about VALUES (?,?)",
                [(lesson_id, target) for target in about],
            )
        return Lesson(int(lesson_id or 0), text, kind, session, agent, at, list(about))

    def find_lessons(self, keys: list[str], words: list[str], limit: int) -> list[Lesson]:
        clauses: list[str] = []
        params: list[object] = []
        if keys:
            clauses.append(
                "l.id IN (SELECT lesson FROM lesson_about "
                "WHERE target IN (SELECT value FROM json_each(?)))"
            )
            params.append(json.dumps(keys))
        if words:
            # every word, as one expression whatever their number (a chain of ANDs grows
            # SQLite's expression tree past its depth limit at about a thousand words)
            clauses.append(
                "NOT EXISTS (SELECT 1 FROM json_each(?) w "
                "WHERE instr(py_lower(l.text), w.value) = 0)"
            )
            params.append(json.dumps([word.lower() for word in words]))
        where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self.db.execute(
            f"SELECT l.id, l.text, l.kind, l.session, l.agent, l.at FROM lessons l {where} "
            "ORDER BY l.at DESC, l.id DESC LIMIT ?",
            [*params, limit],
        ).fetchall()
        found = []
        for row in rows:
            targets = [
                target
                for (target,) in self.db.execute(
                    "SELECT target FROM lesson_about WHERE lesson = ? ORDER BY target", (row[0],)
                )
            ]
            found.append(Lesson(row[0], row[1], row[2], row[3], row[4], row[5], targets))
        return found
