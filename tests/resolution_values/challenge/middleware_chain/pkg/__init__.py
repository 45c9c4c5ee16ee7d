"""WSGI-style middleware composed into one handler."""
