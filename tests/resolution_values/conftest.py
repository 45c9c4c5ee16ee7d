"""The fixture directories (and `challenge/`) are tiny repositories to be parsed, never
imported or run. Keep pytest from collecting any Python file inside them (some hold
`tests/test_*.py` and `conftest.py` files of their own)."""

from pathlib import Path

collect_ignore = [p.name for p in Path(__file__).parent.iterdir() if p.is_dir()]
