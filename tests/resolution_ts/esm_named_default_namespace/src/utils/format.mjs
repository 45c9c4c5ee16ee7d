export default function (amount, currency = "EUR") {
  return `${amount.toFixed(2)} ${currency}`;
}

export function formatDate(date) {
  return date.toISOString().slice(0, 10);
}
