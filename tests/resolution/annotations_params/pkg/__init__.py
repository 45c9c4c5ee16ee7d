"""Customer notifications."""
