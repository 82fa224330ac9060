'use strict';
const fs = require('node:fs');
const path = require('node:path');

function load(file = path.join(__dirname, '..', 'config.json')) {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  return {
    name: raw.service,
    host: raw.server.host,
    port: raw.server.listen,
    dbUrl: raw.db.url,
  };
}

module.exports = { load };
