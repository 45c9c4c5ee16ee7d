"""API layer: HTTP views over the core."""
