export class Logger {
  constructor(private readonly scope: string) {}

  info(message: string): void {
    console.log(`[${this.scope}] ${message}`);
  }
}

export function createLogger(scope: string): Logger {
  return new Logger(scope);
}
