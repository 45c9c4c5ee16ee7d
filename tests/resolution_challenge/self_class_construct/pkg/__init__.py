"""Money arithmetic for the cart."""
