"""Properties and descriptors."""
