"""Shipping domain (part of the `acme` namespace package)."""
