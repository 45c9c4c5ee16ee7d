export function run(month: string): string {
  return `report for ${month}`;
}
