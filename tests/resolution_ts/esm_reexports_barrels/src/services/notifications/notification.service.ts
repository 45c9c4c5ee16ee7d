import { formatCents } from "../../lib/money";

export class NotificationService {
  invoiceReady(email: string, cents: number): string {
    return `Invoice for ${email}: ${formatCents(cents)}`;
  }
}
