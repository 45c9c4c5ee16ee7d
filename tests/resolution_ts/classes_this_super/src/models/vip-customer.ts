import { Customer } from "./customer";

export class VipCustomer extends Customer {
  private perks: string[] = [];

  kind(): string {
    return "vip";
  }

  grant(perk: string): void {
    this.perks.push(perk);
    this.touch("perks");
    this.notify();
    this.perks.forEach(this.log, this);
  }

  perkList(): string {
    return this.perks.map((perk) => this.label(perk)).join(", ");
  }

  flush(): void {
    super.flush();
    this.log("flushed");
  }

  private label(perk: string): string {
    return perk.toUpperCase();
  }

  private log(message: string): void {
    console.log(`[vip ${this.id}] ${message}`);
  }
}
