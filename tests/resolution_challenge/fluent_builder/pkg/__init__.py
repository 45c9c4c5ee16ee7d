"""A small SQL query builder used by the reporting jobs."""
