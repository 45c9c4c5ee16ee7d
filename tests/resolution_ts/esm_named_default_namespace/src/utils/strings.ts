export function slugify(title: string): string {
  return normalize(title).replace(/\s+/g, "-");
}

export function normalize(value: string): string {
  return value.trim().toLowerCase();
}

export const capitalize = (word: string): string =>
  word.charAt(0).toUpperCase() + word.slice(1);
