#!/usr/bin/env node
"use strict";

const { placeOrder } = require("../lib/orders");
const { sleep, timestamp: now } = require("../lib/clock");
const Logger = require("../lib/logger");

async function main() {
  const log = new Logger("worker");
  log.info(`started at ${now()}`);
  await sleep(100);
  placeOrder("ACME Corp", [{ sku: "a-1", qty: 2 }]);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
