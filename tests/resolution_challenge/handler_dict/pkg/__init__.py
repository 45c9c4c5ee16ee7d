"""Order event consumer and webhook receiver."""
