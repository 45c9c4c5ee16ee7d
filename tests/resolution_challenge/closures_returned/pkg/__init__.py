"""Message workers built from handler factories."""
