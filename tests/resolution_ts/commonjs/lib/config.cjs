"use strict";

const DEFAULTS = { epoch: Date.UTC(2024, 0, 1), retries: 3 };

function loadConfig(env) {
  return { ...DEFAULTS, retries: Number(env.ORDER_RETRIES || DEFAULTS.retries) };
}

module.exports = loadConfig(process.env);
module.exports.loadConfig = loadConfig;
