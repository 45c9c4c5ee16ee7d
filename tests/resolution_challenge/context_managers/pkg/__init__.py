"""Database access with pooled connections."""
