from acme.billing.invoice import Invoice


def shipping_label(invoice: Invoice, address):
    return f"{address}: {invoice.total():.2f}"
