import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# `benchmark.corpora` (real source trees) is shared with the benchmark harness
sys.path.insert(0, str(Path(__file__).parent.parent))
