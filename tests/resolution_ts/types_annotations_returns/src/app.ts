import { Circle } from "./domain/circle";
import { Square } from "./domain/square";
import { Color, type Canvas, type Drawable, type Shape } from "./domain/types";
import { makeRepository, openRepository } from "./repo/shape-repository";

let current: Shape | undefined;

export function totalArea(shapes: Shape[]): number {
  return shapes.reduce((sum, shape) => sum + shape.area(), 0);
}

export function describeFirst(shape: Shape | null): string {
  return shape ? shape.describe() : "nothing";
}

export function render(item: Drawable, canvas: Canvas): string {
  item.draw(canvas);
  return item.describe();
}

export function paint(canvas: Canvas, color: Color = Color.Green): void {
  canvas.fill(color);
}

export function remember(shape: Shape): void {
  current = shape;
}

export function currentLabel(): string {
  return current?.describe() ?? "none";
}

export async function seed(): Promise<number> {
  const repo = makeRepository();
  await repo.save(new Circle(2));
  await makeRepository().save(new Square(3));
  const shared = await openRepository();
  await shared.save(new Circle(1));
  const shapes = await (await openRepository()).all();
  return totalArea(shapes);
}
