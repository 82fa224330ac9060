// Smoke check of the VS Code stack that .ci/install-editors.sh installs:
// starts code-server on a free loopback port (its own config, user-data dir and
// XDG dirs in a temp dir), opens /?folder=FOLDER in Debian's chromium through
// playwright-core, waits for the workbench and saves a screenshot.
//
//   node .ci/smoke-code-server.mjs [SCREENSHOT=/tmp/cs.png] [FOLDER=/tmp]
//
// Reads CODE_SERVER, PLAYWRIGHT_CORE_DIR and CHROMIUM from the environment, or
// from $AGENT_LSP_TOOLS/env.sh (default ~/.cache/agent-lsp-tools/env.sh).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const tools = process.env.AGENT_LSP_TOOLS || path.join(os.homedir(), '.cache/agent-lsp-tools');
const envFile = path.join(tools, 'env.sh');
if (fs.existsSync(envFile)) {
  for (const m of fs.readFileSync(envFile, 'utf8').matchAll(/^export (\w+)=(.*)$/gm)) {
    process.env[m[1]] ??= m[2];
  }
}
const { CODE_SERVER, PLAYWRIGHT_CORE_DIR, CHROMIUM = '/usr/bin/chromium' } = process.env;
if (!CODE_SERVER || !PLAYWRIGHT_CORE_DIR) throw new Error(`run .ci/install-editors.sh first (no ${envFile})`);
// Keep $HOME clean: code-server, chromium and playwright write config/cache/logs under XDG dirs.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-smoke-'));
for (const v of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME']) {
  process.env[v] = path.join(tmp, v.toLowerCase());
}
const { chromium } = createRequire(path.join(PLAYWRIGHT_CORE_DIR, 'x.js'))('playwright-core');

const shot = process.argv[2] || '/tmp/cs.png';
const folder = process.argv[3] || '/tmp';
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});
fs.writeFileSync(path.join(tmp, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
const server = spawn(CODE_SERVER, [
  '--config', path.join(tmp, 'config.yaml'), '--user-data-dir', path.join(tmp, 'user-data'),
  '--extensions-dir', path.join(tmp, 'extensions'),
  '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
], {
  stdio: ['ignore', 'pipe', 'pipe'], detached: true,
});
let serverLog = '';
server.stdout.on('data', (d) => { serverLog += d; });
server.stderr.on('data', (d) => { serverLog += d; });

let browser;
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/healthz`)).ok) break; } catch {}
    if (i > 300 || server.exitCode !== null) throw new Error(`code-server did not answer:\n${serverLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`code-server answers HTTP on ${base} after ${elapsed()}`);
  browser = await chromium.launch({
    executablePath: CHROMIUM, env: process.env,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${base}/?folder=${encodeURIComponent(folder)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  // the explorer fills in a moment after the workbench appears
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 30_000 }).catch(() => {});
  await page.screenshot({ path: shot });
  console.log(`workbench up after ${elapsed()}; screenshot ${shot}; ${await page.title()}`);
} finally {
  await browser?.close();
  try { process.kill(-server.pid, 'SIGTERM'); } catch {}
  fs.rmSync(tmp, { recursive: true, force: true });
}
