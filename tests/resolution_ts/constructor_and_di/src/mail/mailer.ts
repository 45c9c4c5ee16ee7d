import { Injectable } from "@nestjs/common";
import { createTransport, type Transporter } from "nodemailer";

@Injectable()
export class Mailer {
  private readonly transport: Transporter = createTransport({ host: "localhost", port: 1025 });

  async send(to: string, subject: string, text: string): Promise<void> {
    await this.transport.sendMail({ from: "noreply@acme.test", to, subject, text });
  }
}
