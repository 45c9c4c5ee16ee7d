export abstract class Entity {
  private static nextId = 1;

  readonly id: number;
  protected changes: string[] = [];

  constructor() {
    this.id = Entity.allocateId();
  }

  static allocateId(): number {
    return Entity.nextId++;
  }

  get dirty(): boolean {
    return this.changes.length > 0;
  }

  protected touch(field: string): void {
    this.changes.push(field);
  }

  describe(): string {
    return `${this.kind()}#${this.id}`;
  }

  abstract kind(): string;
}
