"""Protocol (dunder) methods called by syntax."""
