"""A Flask-like application."""
