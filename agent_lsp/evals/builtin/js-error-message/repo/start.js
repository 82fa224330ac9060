'use strict';
const { load } = require('./lib/settings');

const s = load(process.argv[2]);
console.log(`${s.name} would listen on ${s.host}:${s.port} (db ${s.dbUrl})`);
