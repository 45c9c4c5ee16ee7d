"""Report exporters with timing and a plugin registry."""
