"use strict";

const slugify = require("./slugify");
const Logger = require("./logger");
const clock = require("./clock");
const config = require("./config.cjs");

const log = new Logger("orders");

function orderId(customer) {
  return `${slugify(customer)}-${clock.elapsed(config.epoch)}`;
}

function normalizeItem(item) {
  return { sku: item.sku.toUpperCase(), qty: item.qty || 1 };
}

function placeOrder(customer, items) {
  const id = orderId(customer);
  log.info(`placing ${id}`);
  return { id, items: items.map(normalizeItem) };
}

module.exports = { placeOrder, orderId };
