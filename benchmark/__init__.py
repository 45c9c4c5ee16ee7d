"""Speed and accuracy harnesses (see benchmark/README.md)."""
