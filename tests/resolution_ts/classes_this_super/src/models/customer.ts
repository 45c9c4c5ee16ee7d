import { Entity } from "./entity";

export class Customer extends Entity {
  constructor(
    public name: string,
    private email: string,
  ) {
    super();
    this.touch("created");
  }

  static guest(): Customer {
    return new Customer("guest", "guest@example.com");
  }

  kind(): string {
    return "customer";
  }

  rename(name: string): void {
    this.name = name;
    this.touch("name");
    this.notify();
  }

  describe(): string {
    return `${super.describe()} ${this.name} <${this.email}>`;
  }

  protected notify(): void {
    if (this.dirty) {
      this.flush();
    }
  }

  flush(): void {
    this.changes.splice(0);
  }
}
