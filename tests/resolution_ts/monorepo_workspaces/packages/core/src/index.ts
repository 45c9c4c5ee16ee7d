export { DomainError } from "./errors";
export { User } from "./user";
