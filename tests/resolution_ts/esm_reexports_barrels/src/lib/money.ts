export function roundCents(value: number): number {
  return Math.round(value * 100) / 100;
}

export function formatCents(cents: number): string {
  return `€${roundCents(cents / 100).toFixed(2)}`;
}
