import { Injectable, Optional } from "@nestjs/common";
import { AuditLog } from "../common/audit-log";
import { Clock } from "../common/clock";
import { TtlCache } from "../common/ttl-cache";
import { Mailer } from "../mail/mailer";
import { CreateUserDto, User } from "./user.entity";
import { UsersRepository } from "./users.repository";

@Injectable()
export class UsersService {
  private readonly clock = new Clock();
  private cache: TtlCache<User>;

  constructor(
    private readonly repo: UsersRepository,
    private readonly mailer: Mailer,
    @Optional() private readonly audit?: AuditLog,
  ) {
    this.cache = new TtlCache(60_000);
  }

  async create(dto: CreateUserDto): Promise<User> {
    const existing = await this.repo.findByEmail(dto.email);
    if (existing) {
      return existing;
    }
    const user = await this.repo.save(new User(crypto.randomUUID(), dto.email, dto.name));
    this.cache.set(user.email, user);
    await this.mailer.send(user.email, "Welcome", `Hi ${user.name}, joined ${this.clock.now().toISOString()}`);
    this.audit?.write("user.created", { id: user.id });
    return user;
  }

  async findByEmail(email: string): Promise<User | undefined> {
    return this.cache.get(email) ?? (await this.repo.findByEmail(email));
  }
}
