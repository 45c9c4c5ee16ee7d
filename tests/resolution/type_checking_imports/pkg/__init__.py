"""Accounts and notifications."""
