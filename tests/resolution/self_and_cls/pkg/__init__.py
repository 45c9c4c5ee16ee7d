"""Order management."""
