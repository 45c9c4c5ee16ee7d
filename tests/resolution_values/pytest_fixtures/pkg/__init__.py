"""A command-line tool and its tests."""
