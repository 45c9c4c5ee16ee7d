import { DomainError, User } from "@acme/core";
import { assert, maskEmail } from "@acme/core/utils";
import { createLogger } from "@acme/logger";

const log = createLogger("users");

export class UserNotFound extends DomainError {
  constructor(id: string) {
    super(`user ${id} not found`, "USER_NOT_FOUND");
  }
}

export function findUser(users: User[], id: string): User {
  const user = users.find((candidate) => candidate.id === id);
  if (!user) {
    throw new UserNotFound(id);
  }
  log.info(`found ${maskEmail(user.email)}`);
  return user;
}

export function greet(user: User): string {
  assert(user.email.includes("@"), "invalid email");
  return `Hello ${user.displayName()}`;
}
