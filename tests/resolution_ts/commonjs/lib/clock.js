"use strict";

function timestamp() {
  return new Date().toISOString();
}

function elapsed(since) {
  return Date.now() - since;
}

exports.timestamp = timestamp;
exports.elapsed = elapsed;
exports.sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
