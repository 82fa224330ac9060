'use strict';
const { titleCase } = require('./text');

function postHeader(post) {
  return `# ${titleCase(post.title)}\n`;
}

module.exports = { postHeader };
