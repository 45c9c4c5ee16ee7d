"""Order intake for the web shop."""
