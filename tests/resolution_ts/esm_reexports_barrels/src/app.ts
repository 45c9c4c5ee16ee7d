import { InvoiceService, Notifier, TaxCalculator, audit } from "./services";
import * as lib from "./lib";

audit.record("app loaded");

export function checkout(email: string, net: number): string {
  const invoices = new InvoiceService();
  const total = invoices.total(net, new TaxCalculator(0.21));
  audit.record(`checkout ${email}`);
  return new Notifier().invoiceReady(email, lib.round(total) * 100);
}

export function flushAudit(): string[] {
  return audit.flush();
}
