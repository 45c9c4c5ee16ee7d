import { Issue, OK, Plain, isValid } from "./parseUtil";
import * as util from "./parseUtil";

export class Schema {
  /** Parses a string or a number. */
  parse(input: string): OK<string>;
  parse(input: number): OK<number>;
  parse(input: any): OK<any> {
    const issue: Issue = Issue("bad input");
    issue.describe();
    return OK(input);
  }

  check(value: number): Plain {
    const result: util.OK<number> = util.OK(value);
    return { ok: isValid(result) && isValid(this.parse(value)) };
  }
}

export function build(kind: "strict"): Schema;
export function build(kind: "loose"): Schema;
export function build(kind: string): Schema {
  return new Schema();
}
