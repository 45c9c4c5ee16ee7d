"""Settings service with a core layer and an API layer."""
