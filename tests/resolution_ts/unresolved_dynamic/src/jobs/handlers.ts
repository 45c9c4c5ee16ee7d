export class ExportJob {
  run(payload: unknown): string {
    return `export ${JSON.stringify(payload)}`;
  }
}

export class CleanupJob {
  run(payload: unknown): string {
    return `cleanup ${JSON.stringify(payload)}`;
  }
}
