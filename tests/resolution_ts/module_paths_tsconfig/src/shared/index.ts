export { formatDate, parseDate } from "./dates";
export { Money } from "./money";
