import axios from "axios";
import lodash from "lodash";
import { CleanupJob, ExportJob } from "./handlers";

const handlers: Record<string, (payload: unknown) => string> = {
  exportAll: (payload) => new ExportJob().run(payload),
  cleanup: (payload) => new CleanupJob().run(payload),
};

export function dispatch(kind: string, payload: unknown): string {
  return handlers[kind](payload);
}

export function runAny(job: any, payload: unknown): unknown {
  return job.run(payload);
}

export async function fetchRates(base: string): Promise<Record<string, number>> {
  const response = await axios.get(`https://rates.example.test/${base}`);
  return lodash.get(response.data, "rates", {});
}

export function evaluate(expression: string): unknown {
  return eval(expression);
}
