import { alpha, beta, table } from "./handlers";
import { log, makeCounter, register, relay, run } from "./runner";

@register
export class Service {
  @log("svc")
  handle(): number {
    return run(beta);
  }
}

export function main(kind: string): number {
  relay(alpha);
  makeCounter()();
  const counter = makeCounter();
  counter();
  table["first"]();
  return table[kind]();
}
