"""Signal handlers in a table."""
