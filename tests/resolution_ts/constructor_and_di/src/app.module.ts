import { Module } from "@nestjs/common";
import { Mailer } from "./mail/mailer";
import { UsersController } from "./users/users.controller";
import { UsersRepository } from "./users/users.repository";
import { UsersService } from "./users/users.service";

@Module({
  controllers: [UsersController],
  providers: [UsersService, UsersRepository, Mailer],
})
export class AppModule {}
