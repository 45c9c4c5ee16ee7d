"""Agent sessions, claims, activity and lessons in the SQLite store (schema version 5). A claim
is taken inside one write transaction (BEGIN IMMEDIATE), so concurrent claimers serialize and
exactly one holds a path."""

from __future__ import annotations

import sqlite3

from cartograph.model import AgentSession, Claim, Lesson

_CLAIM_SELECT = (
    "SELECT c.repo, c.path, c.session, c.intent, c.since, c.expires_at, s.agent, s.task "
    "FROM claims c JOIN agent_sessions s ON s.id = c.session "
)
_ACTIVE = "c.expires_at > ? AND s.ended_at = '' AND s.last_seen > ? "


class SQLiteAgents:
    """Mixed into SQLiteStore (which provides `db` and `_transaction`)."""

    db: sqlite3.Connection

    def create_session(self, agent: str, task: str, at: str) -> AgentSession:
        with self._transaction() as db:  # type: ignore[attr-defined]
            cursor = db.execute(
                "INSERT INTO agent_sessions (agent, task, started_at, last_seen) VALUES (?,?,?,?)",
                (agent, task, at, at),
            )
            session_id = cursor.lastrowid
        return AgentSession(int(session_id), agent, task, at, at, "")

    def get_session(self, session_id: int) -> AgentSession | None:
        row = self.db.execute(
            "SELECT id, agent, task, started_at, last_seen, ended_at FROM agent_sessions "
            "WHERE id = ?",
            (session_id,),
        ).fetchone()
        return AgentSession(*row) if row else None

    def touch_session(self, session_id: int, at: str) -> None:
        with self._transaction() as db:  # type: ignore[attr-defined]
            db.execute("UPDATE agent_sessions SET last_seen = ? WHERE id = ?", (at, session_id))

    def end_session(self, session_id: int, at: str) -> None:
        with self._transaction() as db:  # type: ignore[attr-defined]
            db.execute("UPDATE agent_sessions SET ended_at = ? WHERE id = ?", (at, session_id))
            db.execute("DELETE FROM claims WHERE session = ?", (session_id,))

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
        with self._transaction() as db:  # type: ignore[attr-defined]
            held = db.execute(
                _CLAIM_SELECT + "WHERE c.repo = ? AND c.path = ? AND " + _ACTIVE,
                (repo, path, now, alive_after),
            ).fetchone()
            if held is None or held[2] == session:
                since = held[4] if held is not None else now
                db.execute(
                    "INSERT OR REPLACE INTO claims VALUES (?,?,?,?,?,?)",
                    (repo, path, session, intent, since, expires_at),
                )
            row = db.execute(
                _CLAIM_SELECT + "WHERE c.repo = ? AND c.path = ?", (repo, path)
            ).fetchone()
        return Claim(*row)

    def release_path(self, repo: str, path: str, session: int) -> bool:
        with self._transaction() as db:  # type: ignore[attr-defined]
            deleted = db.execute(
                "DELETE FROM claims WHERE repo = ? AND path = ? AND session = ?",
                (repo, path, session),
            ).rowcount
        return deleted == 1

    def list_claims(self, repo: str | None, now: str, alive_after: str) -> list[Claim]:
        where, params = _ACTIVE, [now, alive_after]
        if repo is not None:
            where += "AND c.repo = ? "
            params.append(repo)
        rows = self.db.execute(
            _CLAIM_SELECT + "WHERE " + where + "ORDER BY c.repo, c.path", params
        ).fetchall()
        return [Claim(*row) for row in rows]

    def record_activity(self, session: int, repo: str, path: str, kind: str, at: str) -> bool:
        with self._transaction() as db:  # type: ignore[attr-defined]
            db.execute(
                "INSERT OR REPLACE INTO activity VALUES (?,?,?,?,?)",
                (session, repo, path, kind, at),
            )
        return True

    def session_activity(self, session: int) -> list[tuple[str, str, str, str]]:
        """(repo, path, kind, at) of what a session read and edited."""
        return [
            tuple(row)
            for row in self.db.execute(
                "SELECT repo, path, kind, at FROM activity WHERE session = ? ORDER BY at, path",
                (session,),
            )
        ]

    def add_lesson(
        self, session: int, agent: str, text: str, kind: str, about: list[str], at: str
    ) -> Lesson:
        with self._transaction() as db:  # type: ignore[attr-defined]
            lesson_id = db.execute(
                "INSERT INTO lessons (session, agent, text, kind, at) VALUES (?,?,?,?,?)",
                (session, agent, text, kind, at),
            ).lastrowid
            db.executemany(
                "INSERT OR IGNORE INTO lesson_about VALUES (?,?)",
                [(lesson_id, target) for target in about],
            )
        return Lesson(int(lesson_id), text, kind, session, agent, at, list(about))

    def find_lessons(self, about: list[str], text: str, limit: int) -> list[Lesson]:
        clauses, params = [], []
        if about:
            # a lesson about a folder ("shop/") counts for the paths and symbols inside it
            clauses.append(
                "l.id IN (SELECT lesson FROM lesson_about a JOIN json_each(?) t "
                "ON a.target = t.value OR (substr(a.target, -1) = '/' AND "
                "instr(t.value, a.target) IN (1, instr(t.value, ':') + 1)))"
            )
            params.append(_json(about))
        for word in text.split():
            clauses.append("l.text LIKE ? ESCAPE '\\'")
            params.append(
                "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            )
        where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self.db.execute(
            f"SELECT l.id, l.text, l.kind, l.session, l.agent, l.at FROM lessons l {where} "
            "ORDER BY l.at DESC, l.id DESC LIMIT ?",
            [*params, limit],
        ).fetchall()
        found = []
        for row in rows:
            targets = [
                t
                for (t,) in self.db.execute(
                    "SELECT target FROM lesson_about WHERE lesson = ? ORDER BY target", (row[0],)
                )
            ]
            found.append(Lesson(row[0], row[1], row[2], row[3], row[4], row[5], targets))
        return found


def _json(values: list[str]) -> str:
    import json

    return json.dumps(values)
