import { round } from "../../lib";
import TaxCalculator from "./tax-calculator";

export class InvoiceService {
  total(net: number, calculator: TaxCalculator): number {
    return round(net + calculator.on(net));
  }
}
