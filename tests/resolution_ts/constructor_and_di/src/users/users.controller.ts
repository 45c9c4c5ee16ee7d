import { Body, Controller, Get, Post, Query } from "@nestjs/common";
import { Roles } from "../common/roles.decorator";
import { CreateUserDto, User } from "./user.entity";
import { UsersService } from "./users.service";

@Controller("users")
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @Roles("admin")
  create(@Body() dto: CreateUserDto): Promise<User> {
    return this.users.create(dto);
  }

  @Get()
  find(@Query("email") email: string): Promise<User | undefined> {
    return this.users.findByEmail(email);
  }
}
