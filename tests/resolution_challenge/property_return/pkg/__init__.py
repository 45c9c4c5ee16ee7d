"""Customer accounts and shipping."""
