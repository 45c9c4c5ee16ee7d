// Plain JavaScript kept from the first version of the shop.

export function sumLines(lines) {
  return lines.reduce((total, line) => total + lineTotal(line), 0);
}

function lineTotal(line) {
  return line.quantity * line.unitPrice;
}

export { lineTotal as priceOfLine };
