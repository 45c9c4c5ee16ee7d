"""Lambdas as callable values."""
