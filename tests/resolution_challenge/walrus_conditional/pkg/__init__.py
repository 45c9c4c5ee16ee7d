"""Account onboarding."""
