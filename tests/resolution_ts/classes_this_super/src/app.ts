import { Customer } from "./models/customer";
import { VipCustomer } from "./models/vip-customer";

export function onboard(name: string, email: string): string {
  const vip = new VipCustomer(name, email);
  vip.grant("lounge");
  vip.rename(name.trim());
  return vip.describe();
}

export function guestLabel(): string {
  const guest = VipCustomer.guest();
  return guest.describe();
}

export function describeAll(customers: Customer[]): string[] {
  return customers.map((customer) => customer.describe());
}
