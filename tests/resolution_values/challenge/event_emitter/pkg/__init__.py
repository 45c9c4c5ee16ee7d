"""Listeners on an event emitter."""
