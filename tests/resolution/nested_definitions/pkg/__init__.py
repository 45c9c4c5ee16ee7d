"""Document parsing and configuration."""
