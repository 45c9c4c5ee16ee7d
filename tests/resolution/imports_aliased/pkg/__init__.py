"""File synchronisation between local disk and object storage."""
