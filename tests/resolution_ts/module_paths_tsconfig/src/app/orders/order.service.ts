import { Money, formatDate } from "@shared";
import { toCents } from "utils/currency";
import { orderSlug } from "./slug.js";

export interface Order {
  id: string;
  placedAt: Date;
  amount: number;
}

export class OrderService {
  summarize(order: Order): string {
    const total = new Money(toCents(order.amount));
    return `${orderSlug(order.id, order.placedAt)} ${formatDate(order.placedAt)} ${total.format()}`;
  }
}
