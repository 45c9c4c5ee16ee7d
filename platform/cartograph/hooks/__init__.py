"""Hooks in the agent's harness: `cartograph hook EVENT` reads the harness's JSON on stdin and
answers with its JSON (Claude Code's shapes: `hookSpecificOutput` with `additionalContext`,
`permissionDecision` and `updatedInput`); `cartograph hooks install` wires them into
`.claude/settings.json`. The design: docs/agents.md.

- `protocol`: the events, the tools they match and the JSON each answer takes;
- `events`: what each event does, over a `Backend`;
- `backends`: the local store, or the team server over REST;
- `install`: merging the hooks into a settings file and taking them out again;
- `run`: the command — fails open (any error: exit 0, no decision).
"""
