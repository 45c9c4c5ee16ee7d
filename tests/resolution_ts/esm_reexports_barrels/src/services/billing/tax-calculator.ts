export default class TaxCalculator {
  constructor(private readonly rate: number) {}

  on(amount: number): number {
    return amount * this.rate;
  }
}
