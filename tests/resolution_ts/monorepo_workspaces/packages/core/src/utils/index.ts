import { DomainError } from "../errors";

export function maskEmail(email: string): string {
  const [name, domain] = email.split("@");
  return `${name.slice(0, 1)}***@${domain}`;
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) {
    throw new DomainError(message, "ASSERTION_FAILED");
  }
}
