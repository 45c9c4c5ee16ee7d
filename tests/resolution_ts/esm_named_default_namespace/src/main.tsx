import { createRoot } from "react-dom/client";
import PriceTag from "./components/price-tag";
import { invoiceSummary } from "./app";

const root = createRoot(document.getElementById("root")!);

console.log(invoiceSummary("ACME Corp", [{ quantity: 2, unitPrice: 9.5 }]));
root.render(<PriceTag label="total" amount={19} updatedAt={new Date()} />);
