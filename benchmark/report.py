"""Writing a benchmark's report: benchmark/results/<name>-<date>.json (the data) and .md (the
table people read), and the table on stdout."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


def run_facts() -> dict[str, str]:
    """When, at which commit and on what a benchmark ran: the head of every report."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parent,
    ).stdout.strip()
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
    }


def write_report(name: str, report: dict, markdown: str, write: bool = True) -> Path:
    """Print the table and write both files for `report` (its "date" names them; `write`
    False: print only); returns the .md path."""
    sys.stdout.write(markdown)
    if not write:
        return RESULTS / f"{name}-{report['date'][:10]}.md"
    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / f"{name}-{report['date'][:10]}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    stem.with_suffix(".md").write_text(markdown)
    return stem.with_suffix(".md")


def latency_stats(seconds: list[float]) -> dict:
    """p50, p95 and max in milliseconds of a list of wall times in seconds."""
    import statistics

    ordered = sorted(seconds)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
        "runs": len(ordered),
    }
