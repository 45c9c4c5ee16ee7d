import { Color, type Canvas, type Drawable, type ShapeKind } from "./types";

export class Circle implements Drawable {
  readonly kind: ShapeKind = "circle";
  color = Color.Red;

  constructor(private readonly radius: number) {}

  area(): number {
    return Math.PI * this.radius ** 2;
  }

  describe(): string {
    return `circle r=${this.radius}`;
  }

  draw(canvas: Canvas): void {
    canvas.fill(this.color);
    canvas.text(this.describe());
  }
}
