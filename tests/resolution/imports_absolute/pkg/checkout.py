"""Checkout flow that only uses absolute imports."""
import pkg.pricing
import pkg.util.text
from pkg.pricing import discount
from pkg.util import text


def total(amount):
    return pkg.pricing.apply_tax(amount)


def total_with_discount(amount, percent):
    reduced = discount(amount, percent)
    return pkg.pricing.apply_tax(reduced)


def receipt_name(customer):
    # `import pkg.pricing` also binds `pkg`, so functions of pkg/__init__.py are reachable.
    return pkg.util.text.slugify(customer) + "-" + pkg.version()


def order_slug(title):
    return text.slugify(title)
