"""Writing a benchmark's report: benchmark/results/<name>-<date>.json (the data) and .md (the
table people read), and the table on stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


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
