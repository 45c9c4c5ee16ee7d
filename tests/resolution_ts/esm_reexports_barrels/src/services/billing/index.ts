export { InvoiceService } from "./invoice.service";
export { default as TaxCalculator } from "./tax-calculator";
