"""Token issuing with an injectable clock."""
