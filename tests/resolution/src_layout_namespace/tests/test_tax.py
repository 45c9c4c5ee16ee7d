# Imports by the short name, as when the test runner puts src/acme on sys.path.
from billing.tax import tax_for


def test_tax_for_germany():
    assert round(tax_for(100, "DE"), 2) == 19.0
