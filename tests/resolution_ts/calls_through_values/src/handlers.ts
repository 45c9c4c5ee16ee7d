export function alpha(): number {
  return 1;
}

export function beta(): number {
  return 2;
}

export function unused(): number {
  return 3;
}

export const table = {
  first: alpha,
  second: beta,
  third() {
    return unused();
  },
};
