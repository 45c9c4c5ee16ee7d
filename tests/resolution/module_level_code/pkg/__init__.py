"""Webhook notifier; configures itself on import."""
from .settings import configure

configure()
