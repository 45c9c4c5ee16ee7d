import formatPrice, { formatDate as isoDate } from "../utils/format.mjs";
import * as strings from "../utils/strings";

export interface PriceTagProps {
  label: string;
  amount: number;
  updatedAt: Date;
}

export default function PriceTag({ label, amount, updatedAt }: PriceTagProps) {
  return (
    <span id={strings.slugify(label)} title={isoDate(updatedAt)}>
      {strings.capitalize(label)}: {formatPrice(amount)}
    </span>
  );
}
