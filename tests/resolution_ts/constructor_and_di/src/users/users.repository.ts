import { Injectable } from "@nestjs/common";
import { User } from "./user.entity";

@Injectable()
export class UsersRepository {
  private readonly rows: Map<string, User> = new Map();

  async save(user: User): Promise<User> {
    this.rows.set(user.id, user);
    return user;
  }

  async findByEmail(email: string): Promise<User | undefined> {
    return [...this.rows.values()].find((row) => row.email === email);
  }
}
