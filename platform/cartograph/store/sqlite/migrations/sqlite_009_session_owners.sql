-- Schema version 9: a session belongs to the token that opened it (its name; '' for a session
-- opened without one, on this machine): only that token, or an admin, may act in it.

ALTER TABLE agent_sessions ADD COLUMN owner TEXT NOT NULL DEFAULT '';
