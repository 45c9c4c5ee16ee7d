"""Background job runner."""
