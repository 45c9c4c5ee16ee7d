import { OrderService } from "@app/orders/order.service";
import { OrderRow } from "@app/ui/order-row";
import { Money, parseDate } from "@shared";

export const routes = [{ path: "/orders", component: OrderRow }];

const service = new OrderService();
const summary = service.summarize({ id: "A-1", placedAt: parseDate("2024-05-01"), amount: 12.5 });

console.log(summary, new Money(250).format());
