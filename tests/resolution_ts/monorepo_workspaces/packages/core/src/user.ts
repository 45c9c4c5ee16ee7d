import { maskEmail } from "./utils";

export class User {
  constructor(
    readonly id: string,
    readonly email: string,
  ) {}

  displayName(): string {
    return maskEmail(this.email);
  }
}
