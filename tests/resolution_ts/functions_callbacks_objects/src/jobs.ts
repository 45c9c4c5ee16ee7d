import { makeCounter } from "./lib/counter";
import { api } from "./lib/http";
import { pause, withRetry } from "./lib/retry";

type Job = { name: string; handler: () => Promise<unknown> };

export const counter = makeCounter(10);

function logResult(name: string) {
  return (result: unknown) => {
    console.log(`${name} finished`, result);
    return result;
  };
}

const toLabel = function (name: string): string {
  return name.replace(/-/g, " ");
};

export const syncUsers = async () => {
  const users = await withRetry(() => api.get("/users"));
  return api.post("/sync", users);
};

export async function purgeCache(): Promise<void> {
  await api.remove("/cache");
  await pause(50);
}

const jobs: Job[] = [
  { name: "sync-users", handler: syncUsers },
  { name: "purge-cache", handler: purgeCache },
];

export function runAll(): Promise<unknown[]> {
  return Promise.all(jobs.map((job) => job.handler().then(logResult(job.name))));
}

export function jobNames(): string[] {
  return jobs.map((job) => job.name).map(toLabel);
}

export function scheduleNightly(): void {
  setTimeout(runAll, 24 * 60 * 60 * 1000);
}

export function loadReport(month: string): Promise<string> {
  return import("./lib/lazy-report").then((m) => m.run(month));
}

(() => {
  scheduleNightly();
})();
