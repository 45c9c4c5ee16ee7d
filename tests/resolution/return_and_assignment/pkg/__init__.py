"""Database maintenance jobs."""
