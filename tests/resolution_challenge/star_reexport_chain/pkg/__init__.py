"""Report export service."""
