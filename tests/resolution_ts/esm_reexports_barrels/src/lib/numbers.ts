export { roundCents as round } from "./math";
