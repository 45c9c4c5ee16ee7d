"use strict";

const { timestamp } = require("./clock");

module.exports = class Logger {
  constructor(prefix) {
    this.prefix = prefix;
  }

  info(message) {
    console.log(`${timestamp()} [${this.prefix}] ${message}`);
  }

  child(suffix) {
    return new Logger(`${this.prefix}:${suffix}`);
  }
};
