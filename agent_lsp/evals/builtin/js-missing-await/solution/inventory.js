'use strict';
const fs = require('node:fs/promises');
const path = require('node:path');

/** Read one warehouse file: JSON {"sku": count, ...}. */
async function readStock(file) {
  const text = await fs.readFile(file, 'utf8');
  return JSON.parse(text);
}

/** Total count per SKU over every .json file of a folder. */
async function totalStock(dir) {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const totals = {};
  for (const f of files) {
    const stock = await readStock(path.join(dir, f));
    for (const [sku, n] of Object.entries(stock)) {
      totals[sku] = (totals[sku] || 0) + n;
    }
  }
  return totals;
}

module.exports = { readStock, totalStock };
