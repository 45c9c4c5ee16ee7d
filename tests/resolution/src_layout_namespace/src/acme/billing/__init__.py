"""Billing domain (part of the `acme` namespace package)."""
