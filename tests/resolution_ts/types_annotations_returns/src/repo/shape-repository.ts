import type { Shape } from "../domain/types";

export interface ShapeRepository {
  save(shape: Shape): Promise<void>;
  all(): Promise<Shape[]>;
}

export class MemoryShapeRepository implements ShapeRepository {
  private readonly shapes: Shape[] = [];

  async save(shape: Shape): Promise<void> {
    this.shapes.push(shape);
  }

  async all(): Promise<Shape[]> {
    return [...this.shapes];
  }
}

export function makeRepository(): MemoryShapeRepository {
  return new MemoryShapeRepository();
}

export async function openRepository(): Promise<ShapeRepository> {
  return makeRepository();
}
