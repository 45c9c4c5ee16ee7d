"""Functions that return functions."""
