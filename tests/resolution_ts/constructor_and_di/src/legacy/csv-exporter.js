import { Clock } from "../common/clock";

export class CsvExporter {
  constructor(mailer) {
    this.mailer = mailer;
    this.clock = new Clock();
  }

  async export(rows, recipient) {
    const header = `# exported ${this.clock.now().toISOString()}`;
    const csv = [header, ...rows.map((row) => row.join(","))].join("\n");
    await this.mailer.send(recipient, "Export", csv);
    return csv;
  }
}
