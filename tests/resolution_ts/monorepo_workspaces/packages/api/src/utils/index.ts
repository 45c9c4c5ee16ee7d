// Redaction for access logs; not the same helper as @acme/core/utils.
export function maskEmail(email: string): string {
  return email.replace(/./g, "*");
}
