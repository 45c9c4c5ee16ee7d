import formatPrice from "./utils/format.mjs";
import { normalize, slugify as toSlug } from "./utils/strings";
import * as totals from "./legacy/totals";
import { priceOfLine } from "./legacy/totals";

interface Line {
  quantity: number;
  unitPrice: number;
}

// Older keys used underscores; kept for links that are already out there.
const slugify = (text: string) => text.trim().replace(/ /g, "_");

export function invoiceSummary(customer: string, lines: Line[]): string {
  const key = toSlug(customer);
  const total = totals.sumLines(lines);
  const first = lines.length > 0 ? priceOfLine(lines[0]) : 0;
  return `${key}: ${formatPrice(total)} (first line ${first})`;
}

export function sameCustomer(a: string, b: string): boolean {
  return normalize(a) === normalize(b);
}

export function legacyKey(customer: string): string {
  return slugify(customer);
}
