"""Task execution."""
