const tables = new Map<string, Function>();

export function Entity(table: string) {
  return (target: Function): void => {
    tables.set(table, target);
  };
}

export function Timestamped(target: Function): void {
  Object.defineProperty(target.prototype, "loadedAt", { value: new Date(), writable: true });
}
