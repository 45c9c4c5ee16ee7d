"""A command-line tool tested through a runner fixture."""
