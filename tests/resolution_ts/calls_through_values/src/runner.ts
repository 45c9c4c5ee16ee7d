export function run(callback: () => number): number {
  return callback();
}

export function relay(fn: () => number): number {
  return run(fn);
}

export function makeCounter() {
  function increment(): number {
    return 1;
  }
  return increment;
}

const registry: Function[] = [];

export function register(target: Function) {
  registry.push(target);
}

export function log(prefix: string) {
  function apply(target: object, key: string) {
    return prefix + key;
  }
  return apply;
}
