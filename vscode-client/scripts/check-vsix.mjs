// Checks a built .vsix: under the size limit, the server and its libraries inside, no
// platform binaries. Prints what it holds by top folder.
//
//   node scripts/check-vsix.mjs dist/agent-lsp.vsix [--list]
//
// Reads the zip's central directory itself (no unzip needed on the build machine).
import * as fs from 'node:fs';

const LIMIT = 8 * 1024 * 1024;
const file = process.argv[2] ?? 'dist/agent-lsp.vsix';
const buf = fs.readFileSync(file);

function entries(zip) {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: broken central directory`);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    out.push({ name: zip.toString('utf8', at + 46, at + 46 + nameLen), size, compressed });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

const list = entries(buf);
const problems = [];
if (buf.length >= LIMIT) problems.push(`${file} is ${(buf.length / 1e6).toFixed(2)} MB, over the 8 MB limit`);
for (const needed of [
  'extension/package.json',
  'extension/dist/extension.js',
  'extension/dist/webview.js',
  'extension/bundled/libs/agent_lsp/__init__.py',
  'extension/bundled/libs/agent_lsp/server/main.py',
  'extension/bundled/libs/pygls/__init__.py',
  'extension/bundled/libs/lsprotocol/types.py',
  'extension/bundled/libs/httpx/__init__.py',
  'extension/bundled/libs/pathspec/__init__.py',
]) {
  if (!list.some((e) => e.name === needed)) problems.push(`missing: ${needed}`);
}
const binaries = list.filter((e) => /\.(so|pyd|dll|dylib|exe)$|\/ripgrep\/|\/bin\/rg$|__pycache__|\.pyc$/.test(e.name));
for (const b of binaries) problems.push(`not pure Python / not needed: ${b.name}`);

const groups = new Map();
for (const e of list) {
  const parts = e.name.split('/');
  const key = parts[1] === 'bundled' ? parts.slice(0, 4).join('/') : parts.slice(0, 2).join('/');
  const g = groups.get(key) ?? { files: 0, size: 0, compressed: 0 };
  g.files++;
  g.size += e.size;
  g.compressed += e.compressed;
  groups.set(key, g);
}
console.log(`${file}: ${(buf.length / 1e6).toFixed(2)} MB (limit 8 MB), ${list.length} files`);
for (const [key, g] of [...groups].sort((a, b) => b[1].compressed - a[1].compressed)) {
  console.log(`  ${(g.compressed / 1e3).toFixed(0).padStart(6)} kB packed ${(g.size / 1e3).toFixed(0).padStart(6)} kB  ${String(g.files).padStart(4)} files  ${key}`);
}
if (process.argv.includes('--list')) for (const e of list) console.log(`  ${e.name}`);
if (problems.length) {
  console.error(`check-vsix: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('check-vsix: ok');
