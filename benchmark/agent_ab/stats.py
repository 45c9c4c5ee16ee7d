"""Paired differences between the arms and their 95 % confidence intervals.

A pair is the two runs of one task with the same repeat number (`baseline` and `cartograph`).
Each metric's difference is cartograph - baseline, per pair. The interval is Student's
t-interval over the paired differences: mean ± t(0.975, n-1) · sd / √n (no interval for one
pair; the success rate's interval is cut to [-1, +1], the most a rate can move). Per task the
pairs are its repeats; overall they are every pair of every task.

Cost metrics (tokens, turns, tool calls, wall time) use the pairs where both runs ended on
their own (ok or failed: a timed-out run's stream is cut short); the success rate uses every
pair (a timeout is a miss). A run the harness could not start (`error`) leaves its pair out."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Run = dict[str, Any]

# t(0.975, df) for a 95 % two-sided interval; between entries the next smaller df is used
# (a slightly wider interval)
T_975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
    9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
    17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
    25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000,
    120: 1.980,
}  # fmt: skip
FINISHED = ("ok", "failed")


def t_critical(df: int) -> float:
    if df < 1:
        raise ValueError("no interval without a degree of freedom")
    if df > max(T_975):
        return 1.960
    return T_975[max(d for d in T_975 if d <= df)]


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    value: Callable[[Run], float]
    cost: bool = True  # compared on finished pairs only


METRICS = (
    Metric("total_tokens", "total tokens", lambda r: r["metrics"]["tokens"]["total"]),
    Metric("input_tokens", "input tokens (uncached)", lambda r: r["metrics"]["tokens"]["input"]),
    Metric("cache_read_tokens", "cache-read tokens", lambda r: r["metrics"]["tokens"]["cache_read"]),
    Metric("cache_creation_tokens", "cache-write tokens",
           lambda r: r["metrics"]["tokens"]["cache_creation"]),
    Metric("output_tokens", "output tokens", lambda r: r["metrics"]["tokens"]["output"]),
    Metric("turns", "turns", lambda r: r["metrics"]["turns"]),
    Metric("tool_calls", "tool calls", lambda r: r["metrics"]["tool_calls_total"]),
    Metric("grep_calls", "grep/search calls", lambda r: r["metrics"]["grep_calls"]),
    Metric("read_calls", "read calls", lambda r: r["metrics"]["read_calls"]),
    Metric("cartograph_calls", "Cartograph calls", lambda r: r["metrics"]["cartograph_calls_total"]),
    Metric("wall_seconds", "wall time (s)", lambda r: r["wall_seconds"]),
    Metric("success", "success rate", lambda r: 1.0 if r["success"] else 0.0, cost=False),
)  # fmt: skip


def interval(differences: Sequence[float]) -> dict[str, Any]:
    """Mean, sd and the 95 % t-interval of paired differences."""
    n = len(differences)
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "low": None, "high": None}
    mean = statistics.fmean(differences)
    if n == 1:
        return {"n": 1, "mean": mean, "sd": None, "low": None, "high": None}
    sd = statistics.stdev(differences)
    half = t_critical(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "low": mean - half, "high": mean + half}


def pairs(runs: Sequence[Run]) -> dict[str, list[tuple[Run, Run]]]:
    """(baseline, cartograph) runs of each task, by repeat, in repeat order."""
    by_key: dict[tuple[str, int], dict[str, Run]] = {}
    for run in runs:
        if run["status"] == "error":
            continue
        by_key.setdefault((run["task"], run["repeat"]), {})[run["arm"]] = run
    out: dict[str, list[tuple[Run, Run]]] = {}
    for (task, _repeat), arms in sorted(by_key.items()):
        if "baseline" in arms and "cartograph" in arms:
            out.setdefault(task, []).append((arms["baseline"], arms["cartograph"]))
    return out


def compare(task_pairs: Sequence[tuple[Run, Run]]) -> dict[str, dict[str, Any]]:
    """Each metric's arm means and the interval of its paired differences."""
    result: dict[str, dict[str, Any]] = {}
    for metric in METRICS:
        used = [
            (b, c)
            for b, c in task_pairs
            if not metric.cost or (b["status"] in FINISHED and c["status"] in FINISHED)
        ]
        baseline = [metric.value(b) for b, _ in used]
        cartograph = [metric.value(c) for _, c in used]
        stats = interval([c - b for b, c in zip(baseline, cartograph, strict=True)])
        if metric.key == "success" and stats["low"] is not None:  # a rate moves by 1 at most
            stats["low"], stats["high"] = max(stats["low"], -1.0), min(stats["high"], 1.0)
        base_mean = statistics.fmean(baseline) if baseline else None
        carto_mean = statistics.fmean(cartograph) if cartograph else None
        stats["baseline_mean"] = base_mean
        stats["cartograph_mean"] = carto_mean
        stats["relative"] = (
            (carto_mean - base_mean) / base_mean
            if base_mean and carto_mean is not None and metric.key != "success"
            else None
        )
        result[metric.key] = stats
    return result


def deltas(runs: Sequence[Run]) -> dict[str, Any]:
    """Per task and overall comparisons (what metrics.json keeps under `deltas`)."""
    by_task = pairs(runs)
    every = [pair for task_pairs in by_task.values() for pair in task_pairs]
    return {
        "method": "cartograph - baseline per paired run (same task and repeat); 95 % "
        "Student t-interval over the paired differences; cost metrics over pairs where "
        "both runs finished, success over every pair",
        "tasks": {task: {"pairs": len(p), **compare(p)} for task, p in by_task.items()},
        "overall": {"pairs": len(every), **compare(every)},
    }


# ---------------------------------------------------------------------------- summary.md


def _number(value: float | None, key: str) -> str:
    if value is None:
        return "-"
    if key == "success":
        return f"{value * 100:.0f} %"
    if key == "wall_seconds":
        return f"{value:.1f}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}"


def _signed(value: float | None, key: str) -> str:
    if value is None:
        return "-"
    if key == "success":
        return f"{value * 100:+.0f} pts"
    text = _number(abs(value), key)
    return ("-" if value < 0 else "+") + text


def _interval_text(stats: dict[str, Any], key: str) -> str:
    if stats["low"] is None:
        return "n/a (one pair)" if stats["n"] == 1 else "-"
    return f"[{_signed(stats['low'], key)}, {_signed(stats['high'], key)}]"


def _relative(stats: dict[str, Any]) -> str:
    return "-" if stats.get("relative") is None else f"{stats['relative'] * 100:+.0f} %"


def summary_markdown(header: dict[str, Any], runs: Sequence[Run], result: dict[str, Any]) -> str:
    lines = [
        f"# Agent A/B: {header['agent']}, {header['repeats']} repeat(s) per arm",
        "",
        f"Started {header['started']}, {len(runs)} runs of {header['task_count']} task(s); "
        f"agent command `{header['agent_command']}`; timeout {header['timeout']:g} s per run.",
        "Arms: `baseline` (the tree as it is) and `cartograph` (the tree indexed, Cartograph's "
        f"MCP server and hooks installed for `{header['hooks_agent'] or 'no harness'}`).",
        "Δ = cartograph - baseline over paired runs (same task, same repeat); the interval is "
        "the 95 % Student t-interval over the paired differences. Cost rows use the pairs "
        "where both runs finished (ok or failed); success uses every pair.",
        "",
        "## Overall",
        "",
        *_metric_table(result["overall"]),
        "",
        "## Runs",
        "",
        "| arm | runs | ok | failed | timeout | error | validation passed | success |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for arm in ("baseline", "cartograph"):
        mine = [r for r in runs if r["arm"] == arm]
        count = {
            s: sum(1 for r in mine if r["status"] == s)
            for s in ("ok", "failed", "timeout", "error")
        }
        validated = [r for r in mine if r.get("validation") and r["validation"].get("ran")]
        passed = sum(1 for r in validated if r["validation"]["passed"])
        succeeded = sum(1 for r in mine if r["success"])
        lines.append(
            f"| {arm} | {len(mine)} | {count['ok']} | {count['failed']} | {count['timeout']} | "
            f"{count['error']} | {passed}/{len(validated)} | {succeeded}/{len(mine)} |"
        )  # fmt: skip
    lines += [
        "",
        "## Per task",
        "",
        "Means per arm (baseline → cartograph) and Δ with its 95 % interval.",
        "",
        "| task | kind | pairs | total tokens | turns | tool calls | grep/search | reads | wall (s) | success |",
        "|---|---|---:|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    kinds = {r["task"]: r["kind"] for r in runs}
    for task, stats in result["tasks"].items():
        cells = [
            _task_cell(stats[key], key)
            for key in ("total_tokens", "turns", "tool_calls", "grep_calls", "read_calls",
                        "wall_seconds", "success")
        ]  # fmt: skip
        lines.append(
            f"| {task} | {kinds.get(task, '')} | {stats['pairs']} | " + " | ".join(cells) + " |"
        )
    unpaired = sorted({r["task"] for r in runs} - set(result["tasks"]))
    if unpaired:
        lines += ["", "No complete pair (a run could not start): " + ", ".join(unpaired)]
    problems = [r for r in runs if r["status"] != "ok"]
    if problems:
        lines += ["", "## Runs that did not end ok", ""]
        for run in problems:
            why = run.get("error") or run["metrics"].get("error") or ""
            lines.append(
                f"- {run['task']} {run['arm']} #{run['repeat']}: {run['status']}"
                + (f" (exit {run['exit_code']})" if run.get("exit_code") not in (None, 0) else "")
                + (f" — {why}" if why else "")
            )
    return "\n".join(lines) + "\n"


def _metric_table(stats: dict[str, Any]) -> list[str]:
    rows = [
        f"Pairs: {stats['pairs']}.",
        "",
        "| metric | baseline mean | cartograph mean | Δ mean | 95 % interval of Δ | Δ % | pairs used |",
        "|---|---:|---:|---:|---|---:|---:|",
    ]  # fmt: skip
    for metric in METRICS:
        row = stats[metric.key]
        rows.append(
            f"| {metric.label} | {_number(row['baseline_mean'], metric.key)} | "
            f"{_number(row['cartograph_mean'], metric.key)} | {_signed(row['mean'], metric.key)} | "
            f"{_interval_text(row, metric.key)} | {_relative(row)} | {row['n']} |"
        )
    return rows


def _task_cell(stats: dict[str, Any], key: str) -> str:
    if stats["n"] == 0:
        return "-"
    means = f"{_number(stats['baseline_mean'], key)} → {_number(stats['cartograph_mean'], key)}"
    if stats["low"] is None:
        return f"{means}, Δ {_signed(stats['mean'], key)}"
    return f"{means}, Δ {_signed(stats['mean'], key)} {_interval_text(stats, key)}"
