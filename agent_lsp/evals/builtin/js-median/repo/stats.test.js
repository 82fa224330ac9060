'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { mean, median } = require('./stats');

test('mean', () => {
  assert.strictEqual(mean([1, 2, 3, 4]), 2.5);
});

test('median of an odd count', () => {
  assert.strictEqual(median([3, 1, 2]), 2);
});

test('median of an even count is the mean of the middle two', () => {
  assert.strictEqual(median([4, 1, 3, 2]), 2.5);
});

test('median sorts numbers as numbers', () => {
  assert.strictEqual(median([10, 9, 100]), 10);
});
