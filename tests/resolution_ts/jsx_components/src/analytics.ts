export function track(event: string, data?: Record<string, unknown>): void {
  console.debug("[analytics]", event, data ?? {});
}
