"""Agents working on a team's repositories: sessions, file claims, what they read and edited,
and the lessons they leave for the next agent (see cartograph.agents.sessions)."""
