"""Event handling."""
