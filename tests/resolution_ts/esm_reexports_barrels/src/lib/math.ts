export { roundCents } from "./money";
