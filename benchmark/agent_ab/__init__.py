"""The agent A/B harness: a headless coding agent on tasks with known answers, in a scratch
copy of each task's repository, once without Cartograph (`baseline`) and once with it
(`cartograph`: the tree indexed, the MCP server and hooks installed), repeated and interleaved;
what each run cost (tokens, turns, tool calls, greps, reads, wall time) and whether it found or
fixed what the real fix changed, with paired differences and their confidence intervals.

- `tasks`: the task YAML files (benchmark/agent_tasks/);
- `sources`: the repositories, cloned once and checked out per run;
- `agents`: the adapters (claude, codex, gemini, command);
- `streams`: reading each CLI's output stream;
- `runner`: one run; `stats`: the comparison; `cli`: the command.

    python -m benchmark.agent_ab --agent claude --tasks benchmark/agent_tasks --repeats 3 --out DIR

docs/agents.md ("Measuring what it buys") says how a team runs it on its own agent and
repositories."""
