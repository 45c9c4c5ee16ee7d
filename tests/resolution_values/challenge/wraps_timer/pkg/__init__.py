"""Timing decorator with functools.wraps."""
