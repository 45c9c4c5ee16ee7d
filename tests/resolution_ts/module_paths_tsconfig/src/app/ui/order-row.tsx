import { OrderService, type Order } from "@app/orders/order.service";
import { Badge } from "./badge";

const service = new OrderService();

export function OrderRow({ order }: { order: Order }) {
  return (
    <li className="order-row">
      <Badge label={service.summarize(order)} />
    </li>
  );
}
