"""The challenge fixture directories are tiny repositories to be parsed, never imported or run.

Keep pytest from collecting any Python file inside them.
"""

from pathlib import Path

collect_ignore = [p.name for p in Path(__file__).parent.iterdir() if p.is_dir()]
