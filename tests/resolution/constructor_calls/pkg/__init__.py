"""HTTP client toolkit."""
