// Loaded with a plain <script> tag; formatPrice comes from whichever pricing
// bundle the page happens to include.
function printReceipt(lines) {
  var total = 0;
  for (var i = 0; i < lines.length; i++) {
    total += lines[i].cents;
  }
  document.getElementById("total").textContent = formatPrice(total);
  window.print();
}
