'use strict';
const fs = require('node:fs');
const path = require('node:path');

function load(file = path.join(__dirname, '..', 'config.json')) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  return {
    name: raw.service,
    host: raw.http.host,
    port: raw.http.port,
    dbUrl: raw.db.url,
  };
}

module.exports = { load };
