import type { Canvas, Color, Drawable, ShapeKind } from "./types";

export class Square implements Drawable {
  readonly kind: ShapeKind = "square";
  color?: Color;

  constructor(private readonly side: number) {}

  area(): number {
    return this.side * this.side;
  }

  describe(): string {
    return `square ${this.side}`;
  }

  draw(canvas: Canvas): void {
    canvas.text(this.describe());
  }
}
