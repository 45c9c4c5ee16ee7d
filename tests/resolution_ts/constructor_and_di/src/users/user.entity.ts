import { Entity, Timestamped } from "../common/entity.decorator";

@Entity("users")
@Timestamped
export class User {
  constructor(
    public readonly id: string,
    public email: string,
    public name: string,
  ) {}
}

export interface CreateUserDto {
  email: string;
  name: string;
}
