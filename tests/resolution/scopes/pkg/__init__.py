"""Record processing."""
