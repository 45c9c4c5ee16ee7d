export type OK<T> = { status: "valid"; value: T };
export const OK = <T>(value: T): OK<T> => ({ status: "valid", value });

export interface Issue {
  code: string;
  describe(): string;
}

export function Issue(code: string): Issue {
  return { code, describe: () => code };
}

export type Plain = { ok: boolean };

export function isValid<T>(x: OK<T> | Plain): boolean {
  return "status" in x;
}
