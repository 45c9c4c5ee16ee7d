"""Payload codec with an optional accelerated backend."""
