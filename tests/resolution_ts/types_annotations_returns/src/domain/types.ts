export enum Color {
  Red = "red",
  Green = "green",
}

export type ShapeKind = "circle" | "square";

export interface Shape {
  readonly kind: ShapeKind;
  area(): number;
  describe(): string;
}

export interface Canvas {
  fill(color: Color): void;
  text(value: string): void;
}

export interface Drawable extends Shape {
  color?: Color;
  draw(canvas: Canvas): void;
}
