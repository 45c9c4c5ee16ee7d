const entries: string[] = [];

export function record(event: string): void {
  entries.push(`${new Date().toISOString()} ${event}`);
}

export function flush(): string[] {
  return entries.splice(0, entries.length);
}
