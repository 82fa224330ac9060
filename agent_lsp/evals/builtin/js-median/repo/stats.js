'use strict';

function mean(values) {
  if (values.length === 0) return NaN;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function median(values) {
  if (values.length === 0) return NaN;
  const sorted = values.slice().sort();
  const mid = Math.floor(sorted.length / 2);
  return sorted[mid];
}

module.exports = { mean, median };
