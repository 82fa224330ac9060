'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { totalStock } = require('./inventory');

test('totals add up across warehouses', async () => {
  const totals = await totalStock(path.join(__dirname, 'warehouses'));
  assert.deepStrictEqual(totals, { tea: 5, cups: 10, pots: 2 });
});
