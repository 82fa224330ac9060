// Drives real VS Code (code-server 4.100.3 in Debian's Chromium, through
// playwright-core) through the agent-lsp extension the way a person would.
//
//   node tests/vscode/drive.mjs CONFIG.json
//
// CONFIG: {scenario?, review?, workspace, file, vsix, settings, apiKey, answerText,
// question, reply, secondTask, artifacts, tmp}. Scenarios: the default (set the key,
// Fix with agent on a squiggle from VS Code's JSON validator, answer a question,
// review, Allow, the answer, a second task cancelled; review "refactorPreview" uses
// VS Code's Refactor Preview and the palette), "reject" (Reject in the panel),
// "no-server" (the start-up error whose toast holds config.errorToast) and "extras"
// (Agent: Select Model, the status bar while a task runs, Agent: Past Sessions… and
// Continue in New Session). Tools come from the environment or
// $AGENT_LSP_TOOLS/env.sh (CODE_SERVER, PLAYWRIGHT_CORE_DIR, CHROMIUM). A screenshot
// of every step goes to `artifacts`, with result.json for the Python test to check;
// on failure, failure.png and the notifications too. Prints one line per step with
// the elapsed time; exits non-zero on failure.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const tools = process.env.AGENT_LSP_TOOLS || path.join(os.homedir(), '.cache/agent-lsp-tools');
const envFile = path.join(tools, 'env.sh');
if (fs.existsSync(envFile)) {
  for (const m of fs.readFileSync(envFile, 'utf8').matchAll(/^export (\w+)=(.*)$/gm)) process.env[m[1]] ??= m[2];
}
const { CODE_SERVER, PLAYWRIGHT_CORE_DIR, CHROMIUM = '/usr/bin/chromium' } = process.env;
if (!CODE_SERVER || !PLAYWRIGHT_CORE_DIR) throw new Error(`no CODE_SERVER / PLAYWRIGHT_CORE_DIR (run .ci/install-editors.sh; ${envFile})`);
const { chromium } = createRequire(path.join(PLAYWRIGHT_CORE_DIR, 'x.js'))('playwright-core');

const tmp = config.tmp;
const artifacts = config.artifacts;
fs.mkdirSync(artifacts, { recursive: true });
// Keep $HOME clean: code-server, chromium and playwright write under the XDG dirs.
for (const v of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME']) {
  process.env[v] = path.join(tmp, v.toLowerCase());
}

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const say = (msg) => console.log(`[${elapsed()}] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- code-server
const userData = path.join(tmp, 'user-data');
const extensionsDir = path.join(tmp, 'extensions');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(config.settings, null, 2));
const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const csConfig = path.join(tmp, 'code-server.yaml');
fs.writeFileSync(csConfig, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
const csArgs = ['--config', csConfig, '--user-data-dir', userData, '--extensions-dir', extensionsDir];

const install = spawnSync(CODE_SERVER, [...csArgs, '--install-extension', config.vsix], { encoding: 'utf8', timeout: 120_000 });
if (install.status !== 0) throw new Error(`installing ${config.vsix} failed:\n${install.stdout}\n${install.stderr}`);
say(`installed ${path.basename(config.vsix)}: ${install.stdout.trim().split('\n').pop()}`);

const server = spawn(CODE_SERVER, [...csArgs, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override'], {
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
});
let serverLog = '';
server.stdout.on('data', (d) => (serverLog += d));
server.stderr.on('data', (d) => (serverLog += d));

let browser;
let page;
let shotNo = 0;
async function shot(name) {
  const file = path.join(artifacts, `${String(++shotNo).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  say(`screenshot ${path.basename(file)}`);
  return file;
}

/** Retry fn until it returns a truthy value (or stops throwing) within ms. */
async function until(what, fn, ms = 30_000, every = 250) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (e.fatal) throw e;
      last = e;
    }
    await sleep(every);
  }
  throw new Error(`timed out after ${ms / 1000}s waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

const toast = (text) => page.locator('.notifications-toasts .notification-toast', { hasText: text });

async function clickToastButton(text, button) {
  // Toasts hide into the notification centre after a while; they stay answerable there.
  const start = Date.now();
  await until(`the "${button}" button of "${text}"`, async () => {
    const inToast = toast(text).locator('.monaco-button', { hasText: new RegExp(`^${button}$`) });
    if (await inToast.count()) {
      await inToast.first().click({ timeout: 5000 });
      return true;
    }
    if (Date.now() - start > 10_000) {
      if (!(await page.locator('.notifications-center.visible').count())) await palette('Notifications: Show Notifications');
      const inCenter = page
        .locator('.notifications-center .notification-list-item', { hasText: text })
        .locator('.monaco-button', { hasText: new RegExp(`^${button}$`) });
      if (await inCenter.count()) {
        await inCenter.first().click({ timeout: 5000 });
        return true;
      }
    }
    return false;
  }, 60_000, 500);
}

async function palette(command) {
  await until(`the command palette to run "${command}"`, async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill(`>${command}`);
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: command }).first();
    await row.waitFor({ state: 'visible', timeout: 5000 });
    await page.keyboard.press('Enter');
    return true;
  }, 30_000, 500);
}

/** The Agent panel's webview content (a webview is an iframe holding an iframe). */
function panelFrame() {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** The server cannot start: one notification that says how to fix it, and a red status item. */
async function serverMissing(status) {
  // The server cannot start: one notification that says how to fix it, and a red status item.
  const message = toast(config.errorToast ?? 'could not start');
  await message.waitFor({ state: 'visible', timeout: 60_000 });
  await until('the status bar to say "not running"', async () => /not running/.test((await status.textContent()) ?? ''), 30_000, 300);
  await sleep(800);
  await shot('no-server');
  const result = {
    toasts: await page.locator('.notification-toast').allInnerTexts(),
    status: ((await status.textContent()) ?? '').trim(),
  };
  fs.writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify(result, null, 2));
  console.log(`RESULT ${JSON.stringify(result)}`);
}

/** Wait until the status bar item says the server runs. */
async function serverReady(status) {
  await until('the Agent status bar item to be ready', async () => {
    const text = ((await status.textContent({ timeout: 2000 })) ?? '').trim();
    if (text.includes('not running')) throw Object.assign(new Error(`the server did not start (status bar: ${text})`), { fatal: true });
    return /^Agent(: |$)/.test(text) && !/^Agent: starting/.test(text); // "Agent: <model>"
  }, 90_000, 500).catch(async (e) => {
    const toasts = await page.locator('.notification-toast').allInnerTexts().catch(() => []);
    throw new Error(`${e.message}; notifications: ${JSON.stringify(toasts)}`);
  });
  say('agent-lsp server running');
}

/** Open the broken file; VS Code's JSON validator puts a squiggle on it. */
async function openBrokenFile() {
  await until(`quick open of ${config.file}`, async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 5000 });
    await input.fill(config.file);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: config.file }).first().waitFor({ timeout: 5000 });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab.active', { hasText: config.file }).waitFor({ timeout: 5000 });
    return true;
  });
  await page.waitForSelector('.monaco-editor .squiggly-error', { timeout: 60_000 });
  say('squiggle shown');
  await shot('squiggle');
}

/** Cursor to the problem (F8, Escape closes the peek), Ctrl+. , pick "Fix with agent". */
async function quickFix() {
  await until('the quick fix menu with "Fix with agent"', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('F8');
    await sleep(400);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+.');
    const widget = page.locator('.action-widget');
    await widget.waitFor({ state: 'visible', timeout: 5000 });
    const rows = widget.locator('.monaco-list-row');
    await rows.first().waitFor({ timeout: 5000 });
    if (!(await widget.textContent()).includes('Fix with agent')) {
      await page.keyboard.press('Escape'); // "No code actions available": the server was not asked yet
      return false;
    }
    return true;
  }, 60_000, 1000);
  await shot('quick-fix');
  await until('"Fix with agent" to be the focused row', async () => {
    const focused = page.locator('.action-widget .monaco-list-row.focused');
    if ((await focused.count()) && (await focused.first().textContent()).includes('Fix with agent')) return true;
    await page.keyboard.press('ArrowDown');
    return false;
  }, 10_000, 200);
  await page.keyboard.press('Enter');
  say('picked "Fix with agent"');
}

/** A rejected edit: Reject in the Agent panel; the diff closes, the file stays as it was, the agent is told. */
async function rejectEdit(status) {
  await serverReady(status);
  await openBrokenFile();
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await quickFix();
  await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 60_000 });
  const reject = panelFrame().locator('.entry.review.pending button', { hasText: 'Reject' });
  await reject.waitFor({ state: 'visible', timeout: 30_000 });
  await sleep(500);
  await shot('review');
  await reject.click();
  say('rejected the edit in the Agent panel');
  const answer = await until('the answer in the Agent panel', async () => {
    const text = await panelFrame().locator('.entry.answer').first().innerText({ timeout: 2000 });
    return text.includes(config.answerText) ? text : false;
  }, 60_000, 500);
  await until('the task to end', async () => /done in/.test((await status.textContent()) ?? ''), 30_000, 300);
  await sleep(500);
  await shot('rejected');
  const result = {
    answer,
    review: await panelFrame().locator('.entry.review').innerText(),
    diffEditors: await page.locator('.monaco-diff-editor').count(),
    dirtyTabs: await page.locator('.tabs-container .tab.dirty').count(),
    toasts: await page.locator('.notification-toast').allInnerTexts(),
  };
  fs.writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify(result, null, 2));
  console.log(`RESULT ${JSON.stringify(result)}`);
}

/** The person's path: key, squiggle, quick fix, question, review, Allow, answer, a second task cancelled. */
async function fixWithAgent(status) {
  const viaPalette = config.review === 'refactorPreview';
  // 1. The server starts: the status bar item says "Agent" (not "starting", not an error).
  await serverReady(status);

  // 2. Agent: Set API Key — the key goes to SecretStorage and on to the server.
  await palette('Agent: Set API Key');
  const keyInput = page.locator('.quick-input-widget input[type="password"]');
  await keyInput.waitFor({ state: 'visible' });
  await keyInput.fill(config.apiKey);
  await shot('set-api-key');
  await page.keyboard.press('Enter');
  await toast('API key saved').waitFor({ state: 'visible', timeout: 15_000 });
  say('API key saved');

  // 3. Open the broken file; VS Code's JSON validator puts a squiggle on it.
  await openBrokenFile();

  // 4. Cursor to the problem (F8, Escape closes the peek), Ctrl+. , pick "Fix with agent".
  //    (The refactorPreview run goes through the palette's "Agent: Fix This" instead.)
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  if (viaPalette) {
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('F8');
    await sleep(400);
    await page.keyboard.press('Escape');
    await palette('Agent: Fix This');
    say('ran "Agent: Fix This" from the palette');
  } else {
    await quickFix();
  }

  // 4b. The agent asks a question: an input box (agentLsp/askUser).
  const ask = page.locator('.quick-input-widget', { hasText: config.question });
  await ask.waitFor({ state: 'visible', timeout: 60_000 });
  await ask.locator('input').fill(config.reply);
  await shot('ask-user');
  await page.keyboard.press('Enter');
  say('answered the question');

  if (config.review === 'refactorPreview') {
    // 5. The plain LSP path: VS Code's Refactor Preview, boxes unticked; tick, then Apply.
    const preview = page.locator('.bulk-edit-panel');
    await preview.waitFor({ state: 'visible', timeout: 60_000 });
    await preview.locator('.edit-checkbox').first().waitFor({ timeout: 15_000 });
    await sleep(800);
    await shot('review');
    const ticked = (el) => el.checked === true || el.classList.contains('checked') || el.getAttribute('aria-checked') === 'true';
    await until('the edit to be ticked', async () => {
      const states = await preview.locator('.edit-checkbox').evaluateAll((els, f) => els.map((el) => new Function('el', `return (${f})(el)`)(el)), ticked.toString());
      if (states.length && states.every(Boolean)) return true;
      await preview.locator('.edit-checkbox').first().click(); // the file's box ticks its edits
      return false;
    }, 15_000, 700);
    await shot('review-ticked');
    await preview.locator('.monaco-button', { hasText: /^Apply$/ }).first().click();
    say('ticked and applied the edit in the Refactor Preview');
  } else {
    // 5. The review: a diff with Accept / Reject. Accept is one click.
    await toast('Agent wants to edit').waitFor({ state: 'visible', timeout: 60_000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 30_000 });
    await sleep(800); // let the diff and the toast finish rendering
    await shot('review');
    await clickToastButton('Agent wants to edit', 'Accept');
    say('accepted the edit');
  }

  // 6. The check command: Allow.
  await toast('agent-lsp wants to run').waitFor({ state: 'visible', timeout: 60_000 });
  await sleep(800); // the toast slides in
  await shot('allow-command');
  await clickToastButton('agent-lsp wants to run', 'Allow once');
  say('allowed the command');

  // 7. The answer in the Agent panel.
  const answer = await until('the answer in the Agent panel', async () => {
    const text = await panelFrame().locator('.entry.answer').first().innerText({ timeout: 2000 });
    return text.includes(config.answerText) ? text : false;
  }, 60_000, 500);
  say(`answer in the panel: ${answer.replace(/\s+/g, ' ').slice(0, 100)}`);
  const tools = await panelFrame().locator('.entry.tool').allInnerTexts();
  const todos = await panelFrame().locator('#todos').innerText().catch(() => '');
  await until('the task to end in the status bar', async () => /done in/.test((await status.textContent()) ?? ''), 30_000, 300);
  // Make the panel taller (drag its top edge up) so the whole story shows next to the fixed file.
  try {
    const box = await page.locator('.part.panel').boundingBox();
    if (box && box.height < 400) {
      const x = box.x + box.width / 2;
      await page.mouse.move(x, box.y + 1);
      await page.mouse.down();
      await page.mouse.move(x, box.y - 150, { steps: 8 });
      await page.mouse.move(x, box.y - 260, { steps: 8 });
      await page.mouse.up();
      await page.mouse.move(150, 500); // off the sash and the minimap, so nothing is highlighted
    }
  } catch (e) {
    say(`could not resize the panel: ${e.message}`);
  }
  await sleep(800);
  await shot('panel-answer');

  // 8. A second task from the panel's box (the active file goes along), cancelled from the panel.
  //    (The refactorPreview run uses the palette: "Agent: Run Task…" and "Agent: Cancel".)
  if (viaPalette) {
    await palette('Agent: Run Task');
    const input = page.locator('.quick-input-widget', { hasText: 'What should the agent do?' }).locator('input');
    await input.waitFor({ state: 'visible' });
    await input.fill(config.secondTask);
    await page.keyboard.press('Enter');
  } else {
    const taskBox = panelFrame().locator('#task');
    await taskBox.fill(config.secondTask);
    await taskBox.press('Enter');
  }
  await clickToastButton('agent-lsp wants to run', 'Allow once');
  await until('the slow command to run', async () => (await panelFrame().locator('.entry.tool.running').count()) > 0, 30_000, 300);
  await sleep(500);
  await shot('running');
  if (viaPalette) await palette('Agent: Cancel');
  else await panelFrame().locator('#cancel').click();
  const cancelled = await until('the task to be cancelled', async () => {
    const text = await panelFrame().locator('#status').innerText();
    return /cancelled/.test(text) ? text : false;
  }, 30_000, 300);
  await sleep(300);
  await shot('cancelled');
  say(`panel: ${cancelled}`);

  // 9. What a person would see afterwards: no dirty tab, no conflict.
  const dirty = await page.locator('.tabs-container .tab.dirty').count();
  const conflict = await page.locator('.notification-toast', { hasText: /newer|conflict|changed on disk/i }).count();
  const result = { dirtyTabs: dirty, conflictToasts: conflict, tools, todos, answer, cancelled, seconds: (Date.now() - t0) / 1000 };
  fs.writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify(result, null, 2));
  console.log(`RESULT ${JSON.stringify(result)}`);
}

/** The page of the past session opened in an editor tab (the webview with #session-meta). */
async function sessionFrame() {
  return until('the past session view', async () => {
    for (const f of page.frames()) {
      if (await f.locator('#session-meta').count().catch(() => 0)) return f;
    }
    return false;
  }, 30_000, 300);
}

/** Pick the quick pick row whose label is exactly `label` (typing narrows the list first). */
async function pickRow(label) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(label);
  await sleep(300);
  await page.keyboard.press('Enter');
}

/** Select Model from the endpoint's list; a task with its step in the status bar; the past session reopened and continued. */
async function extras(status) {
  await serverReady(status);
  const settingsFile = path.join(userData, 'User', 'settings.json');

  // Agent: Select Model — the scripted model's GET /v1/models, as a quick pick.
  await palette('Agent: Select Model');
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: config.pickModel }).first().waitFor({ timeout: 30_000 });
  const models = await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
  await shot('select-model');
  await pickRow(config.pickModel);
  await until('the model setting to change', () => JSON.parse(fs.readFileSync(settingsFile, 'utf8'))['agentLsp.model'] === config.pickModel, 15_000, 300);
  const idle = await until('the status bar to show the model', async () => {
    const text = ((await status.textContent()) ?? '').trim();
    return text.includes(`Agent: ${config.pickModel}`) ? text : false; // the item, not the "model …" message
  }, 15_000, 300);
  say(`status bar: ${idle}`);

  // A task from the palette; while it runs the status bar shows its step.
  await palette('Agent: Run Task');
  const input = page.locator('.quick-input-widget', { hasText: 'What should the agent do?' }).locator('input');
  await input.waitFor({ state: 'visible' });
  await input.fill(config.firstTask);
  await page.keyboard.press('Enter');
  const running = await until('the step in the status bar', async () => {
    const text = ((await status.textContent()) ?? '').trim();
    return /step \d+\/\d+/.test(text) ? text : false;
  }, 60_000, 100);
  say(`status bar while running: ${running}`);
  await shot('status-running');
  await until('the first task to end', async () => /done in/.test((await status.textContent()) ?? ''), 60_000, 300);

  // New Session, then reopen the first one from Agent: Past Sessions…
  await palette('Agent: New Session');
  await sleep(500);
  await palette('Agent: Past Sessions');
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: config.firstTask }).first();
  await row.waitFor({ state: 'visible', timeout: 30_000 });
  const listed = await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
  await shot('past-sessions');
  await page.keyboard.press('Enter');
  const frame = await sessionFrame();
  await frame.locator('.entry.answer').first().waitFor({ timeout: 30_000 });
  await sleep(500);
  await shot('past-session');
  const past = {
    meta: await frame.locator('#session-meta').innerText(),
    task: await frame.locator('.entry.task').first().innerText(),
    tools: await frame.locator('.entry.tool').allInnerTexts(),
    answer: await frame.locator('.entry.answer').first().innerText(),
    status: await frame.locator('#status').innerText(),
    taskBox: await frame.locator('#task').count(),
  };
  say(`past session: ${JSON.stringify(past).slice(0, 300)}`);

  // Continue in New Session: a new task that is given the old session's summary.
  await frame.locator('#continue').click();
  const next = page.locator('.quick-input-widget', { hasText: 'What should the agent do next?' }).locator('input');
  await next.waitFor({ state: 'visible', timeout: 15_000 });
  await next.fill(config.continueTask);
  await page.keyboard.press('Enter');
  await until('the continued task to end', async () => /done in/.test((await status.textContent()) ?? ''), 60_000, 300);
  await sleep(500);
  await shot('continued');
  const result = { models, idle, running, listed, past };
  fs.writeFileSync(path.join(artifacts, 'result.json'), JSON.stringify(result, null, 2));
  console.log(`RESULT ${JSON.stringify(result)}`);
}

let failed = false;
try {
  const base = `http://127.0.0.1:${port}`;
  await until('code-server /healthz', async () => (await fetch(`${base}/healthz`)).ok, 60_000, 100);
  say(`code-server up on ${base}`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    env: process.env,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  page.setDefaultTimeout(30_000);
  await page.goto(`${base}/?folder=${encodeURIComponent(config.workspace)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 60_000 });
  say('workbench up');

  const status = page.locator('.statusbar-item', { hasText: /^\s*Agent/ }).first();
  if (config.scenario === 'no-server') await serverMissing(status);
  else if (config.scenario === 'reject') await rejectEdit(status);
  else if (config.scenario === 'extras') await extras(status);
  else await fixWithAgent(status);
} catch (e) {
  failed = true;
  console.error(`FAILED at ${elapsed()}: ${e.stack || e}`);
  try {
    if (page) {
      await page.screenshot({ path: path.join(artifacts, 'failure.png') });
      const toasts = await page.locator('.notification-toast').allInnerTexts().catch(() => []);
      console.error(`notifications: ${JSON.stringify(toasts)}`);
    }
  } catch {
    /* the page is gone */
  }
} finally {
  await browser?.close().catch(() => {});
  try {
    process.kill(-server.pid, 'SIGTERM');
  } catch {
    /* gone */
  }
  fs.writeFileSync(path.join(artifacts, 'code-server.log'), serverLog);
  // the extension host's logs, including the Agent output channel
  const logs = path.join(userData, 'logs');
  if (fs.existsSync(logs)) fs.cpSync(logs, path.join(artifacts, 'vscode-logs'), { recursive: true });
}
process.exit(failed ? 1 : 0);
