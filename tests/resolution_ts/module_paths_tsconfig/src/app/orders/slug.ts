import { formatDate } from "@shared";

export function orderSlug(id: string, placedAt: Date): string {
  return `${id.toLowerCase()}-${formatDate(placedAt)}`;
}
