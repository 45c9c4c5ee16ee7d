"""`python -m benchmark.agent_ab` (see benchmark.agent_ab.cli)."""

import sys

from benchmark.agent_ab.cli import main

sys.exit(main())
