'use strict';

/** Title Case: the first letter of every word upper case. */
function titleCase(s) {
  return s.replace(/\b\w/g, (c) => c.toUpperCase());
}

/** A URL slug: lower case ASCII letters and digits, runs of anything else as one hyphen. */
function slugify(s) {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

module.exports = { titleCase, slugify };
