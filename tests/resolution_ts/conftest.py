"""The fixture directories are tiny TypeScript/JavaScript repositories to be parsed, never
imported or run.

Keep pytest from ever collecting anything inside them.
"""

from pathlib import Path

collect_ignore = [p.name for p in Path(__file__).parent.iterdir() if p.is_dir()]
