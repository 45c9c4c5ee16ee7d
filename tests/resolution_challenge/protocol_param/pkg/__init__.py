"""Billing with pluggable payment gateways."""
