from acme.billing.invoice import Invoice, issue_invoice
from acme.shipping.label import shipping_label


def test_total_includes_tax():
    invoice = issue_invoice(100, "FR")
    assert invoice.total() == 120


def test_label_mentions_total():
    invoice = Invoice(50, "DE")
    assert "59.50" in shipping_label(invoice, "Berlin")
