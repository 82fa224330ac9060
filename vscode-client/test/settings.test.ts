import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_FIXED, droppedKeys, Inspected, launchValuesToConfirm, publicSettings, redact, RESTRICTED_KEYS, sectionsByScope, SERVER_KEYS, serverSettings } from '../src/settings';

test('only set, well-typed values of known keys are sent', () => {
  const s = serverSettings({
    baseUrl: '  http://localhost:11434/v1 ',
    model: '',
    autoApprove: false,
    maxSteps: 20,
    maxTaskTokens: 0,
    commandTimeout: Number.NaN,
    contextWindow: '8000',
    webTools: null,
    server: { command: ['x'] },
    review: { mode: 'diff' },
  });
  assert.deepEqual(s, { baseUrl: 'http://localhost:11434/v1', autoApprove: false, maxSteps: 20, maxTaskTokens: 0, ...CLIENT_FIXED });
});

test('the API key comes from the secret store, trimmed, and only when set', () => {
  assert.equal(serverSettings({}, ' sk-abc ').apiKey, 'sk-abc');
  assert.equal('apiKey' in serverSettings({}, '   '), false);
  assert.equal('apiKey' in serverSettings({}, undefined), false);
  // a key typed into settings.json is not a setting this client sends
  assert.equal('apiKey' in serverSettings({ apiKey: 'from-settings' }), false);
});

test('the client always asks for attached commands and no answer popup', () => {
  assert.deepEqual(serverSettings(undefined), { showAnswer: false, detachCommands: false });
});

test('dropped keys are the ones sent before and missing now', () => {
  assert.deepEqual(droppedKeys(undefined, { a: 1 }), []);
  assert.deepEqual(droppedKeys({ model: 'x', apiKey: 'k', showAnswer: false }, { showAnswer: false }), ['model', 'apiKey']);
  assert.deepEqual(droppedKeys({ model: 'x' }, { model: 'y' }), []);
});

test('the key never reaches the log', () => {
  const s = serverSettings({ model: 'm' }, 'sk-secret');
  const shown = JSON.stringify(publicSettings(s));
  assert.ok(!shown.includes('sk-secret'));
  assert.ok(shown.includes('"apiKey":"(set)"'));
  assert.equal(s.apiKey, 'sk-secret', 'publicSettings copies, it does not mutate');
});

test('redact hides the key in trace text, and leaves text alone without a usable key', () => {
  const trace = 'Params: {"initializationOptions":{"apiKey":"sk-abc123","model":"m"}} sk-abc123';
  assert.equal(redact(trace, 'sk-abc123'), 'Params: {"initializationOptions":{"apiKey":"[redacted]","model":"m"}} [redacted]');
  assert.equal(redact('a b', undefined), 'a b');
  assert.equal(redact('a b', 'a'), 'a b', 'a too-short secret would shred the log');
});

test("VS Code's rg goes to the server as rgPath when there is one", () => {
  assert.equal(serverSettings({}, undefined, '/app/node_modules/@vscode/ripgrep/bin/rg').rgPath, '/app/node_modules/@vscode/ripgrep/bin/rg');
  assert.equal('rgPath' in serverSettings({}, undefined, undefined), false);
});

test("a restricted key's workspace value rides apart, the person's own value stays", () => {
  const inspected: Record<string, Inspected> = {
    baseUrl: { globalValue: 'http://localhost:11434/v1', workspaceFolderValue: 'http://evil.example/v1' },
    autoApprove: { workspaceValue: true },
    webTools: { globalValue: false },
    maxSteps: { globalValue: 30, workspaceFolderValue: 5 },
    model: { globalValue: 'm' },
  };
  const { own, workspace } = sectionsByScope((k) => inspected[k]);
  assert.deepEqual(own, { baseUrl: 'http://localhost:11434/v1', webTools: false, maxSteps: 5, model: 'm' });
  assert.deepEqual(workspace, { baseUrl: 'http://evil.example/v1', autoApprove: true });
  const s = serverSettings(own, undefined, undefined, workspace);
  assert.equal(s.baseUrl, 'http://localhost:11434/v1');
  assert.equal('autoApprove' in s, false);
  assert.deepEqual(s.workspaceSettings, { baseUrl: 'http://evil.example/v1', autoApprove: true });
  assert.equal('workspaceSettings' in serverSettings(own, undefined, undefined, {}), false);
});

test('every restricted key is a server key', () => {
  for (const k of RESTRICTED_KEYS) assert.ok(k in SERVER_KEYS, k);
});

test("a launch setting from the workspace is confirmed first, once per exact value", () => {
  const inspected: Record<string, Inspected> = {
    'server.command': { workspaceFolderValue: ['./evil', 'serve'] },
    'server.python': { globalValue: '/usr/bin/python3', workspaceValue: '/usr/bin/python3' },
    'server.importStrategy': { globalValue: 'useBundled' },
  };
  const ask = launchValuesToConfirm((k) => inspected[k], () => false);
  assert.deepEqual(ask, [{ key: 'server.command', value: ['./evil', 'serve'], own: undefined }]);
  assert.deepEqual(launchValuesToConfirm((k) => inspected[k], () => true), []);
});

test("the sandbox settings: the person's own go as they are, the workspace's ride apart (they may only narrow)", () => {
  const inspected: Record<string, Inspected> = {
    sandbox: { globalValue: 'read-only', workspaceValue: 'off' },
    sandboxNetwork: { workspaceFolderValue: true },
    sandboxWritable: { globalValue: [' /var/cache/build '], workspaceValue: ['/home'] },
  };
  const { own, workspace } = sectionsByScope((k) => inspected[k]);
  const s = serverSettings(own, undefined, undefined, workspace);
  assert.equal(s.sandbox, 'read-only');
  assert.equal('sandboxNetwork' in s, false);
  assert.deepEqual(s.sandboxWritable, ['/var/cache/build']);
  assert.deepEqual(s.workspaceSettings, { sandbox: 'off', sandboxNetwork: true, sandboxWritable: ['/home'] });
});

test('a path list with a non-path in it is not sent', () => {
  assert.equal('sandboxWritable' in serverSettings({ sandboxWritable: ['/ok', 3] }), false);
  assert.equal('sandboxWritable' in serverSettings({ sandboxWritable: '/not-a-list' }), false);
  assert.deepEqual(serverSettings({ sandboxWritable: [] }).sandboxWritable, []);
});
