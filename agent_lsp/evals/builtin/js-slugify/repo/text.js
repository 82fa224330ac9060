'use strict';

/** Title Case: the first letter of every word upper case. */
function titleCase(s) {
  return s.replace(/\b\w/g, (c) => c.toUpperCase());
}

module.exports = { titleCase };
