"""Request handlers composed from mixins."""
