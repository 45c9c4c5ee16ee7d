import { dispatch, fetchRates, runAny } from "./jobs/dispatch";
import { ExportJob } from "./jobs/handlers";
import { runUntyped } from "./jobs/worker";
import { formatPrice } from "./pricing/format-eu";

export async function main(): Promise<void> {
  const rates = await fetchRates("EUR");
  console.log(formatPrice(Math.round((rates.USD ?? 1) * 100)));
  dispatch("exportAll", { id: 1 });
  runAny(new ExportJob(), {});
  runUntyped(new ExportJob(), {});
}
