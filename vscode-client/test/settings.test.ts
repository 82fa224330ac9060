import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLIENT_FIXED, droppedKeys, publicSettings, redact, serverSettings } from '../src/settings';

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
