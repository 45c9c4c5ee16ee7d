"""Core: loading and parsing settings."""
