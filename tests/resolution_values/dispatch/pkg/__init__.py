"""Template methods overridden in subclasses."""
