export * from "./numbers";
export { formatCents } from "./money";
