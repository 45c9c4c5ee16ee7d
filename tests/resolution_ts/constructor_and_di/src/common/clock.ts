export class Clock {
  now(): Date {
    return new Date();
  }
}
