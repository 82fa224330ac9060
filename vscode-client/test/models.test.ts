import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { listModels, modelIds, modelsUrl } from '../src/models';
import { vscodeRipgrep } from '../src/ripgrep';
import { progressLine, reduce, initialState, shortCount } from '../src/agentState';

test('modelIds reads OpenAI-style lists, sorted and without duplicates', () => {
  assert.deepEqual(modelIds({ object: 'list', data: [{ id: 'b' }, { id: 'a' }, { id: 'b' }, { name: 'x' }, null] }), ['a', 'b']);
  assert.equal(modelIds({ models: [] }), undefined);
  assert.equal(modelIds('nope'), undefined);
  assert.equal(modelsUrl('http://h:1/v1/'), 'http://h:1/v1/models');
});

async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => void; seen: http.IncomingMessage[] }> {
  const seen: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, close: () => server.close(), seen };
}

test('listModels asks GET /models with the key, and says why when there is no list', async () => {
  const ok = await serve((_req, res) => res.end(JSON.stringify({ data: [{ id: 'qwen' }, { id: 'llama' }] })));
  try {
    assert.deepEqual(await listModels(ok.url, 'sk-test'), { ids: ['llama', 'qwen'] });
    assert.equal(ok.seen[0].url, '/v1/models');
    assert.equal(ok.seen[0].headers.authorization, 'Bearer sk-test');
  } finally {
    ok.close();
  }
  const missing = await serve((_req, res) => {
    res.statusCode = 404;
    res.end('{}');
  });
  try {
    const r = await listModels(missing.url, undefined);
    assert.deepEqual(r.ids, []);
    assert.match(r.error ?? '', /HTTP 404/);
    assert.equal(missing.seen[0].headers.authorization, undefined);
  } finally {
    missing.close();
  }
  const down = await listModels('http://127.0.0.1:9/v1', undefined, 2000);
  assert.match(down.error ?? '', /cannot reach/);
});

test("vscodeRipgrep finds VS Code's rg under appRoot", () => {
  const files = ['/app/node_modules.asar.unpacked/@vscode/ripgrep/bin/rg'];
  assert.equal(vscodeRipgrep('/app', 'linux', (p) => files.includes(p)), files[0]);
  assert.equal(vscodeRipgrep('/app', 'linux', () => false), undefined);
  assert.equal(vscodeRipgrep('', 'linux', () => true), undefined);
});

test('the status line of a running task: step, tokens when reported, activity', () => {
  let s = reduce(initialState(), { type: 'start', title: 'Agent', task: 't' });
  s = reduce(s, { type: 'event', event: { kind: 'step', text: '', data: { step: 2, maxSteps: 50 } } });
  assert.equal(progressLine(s), 'step 2/50 · thinking');
  s = reduce(s, { type: 'event', event: { kind: 'usage', text: 'tokens: 12,000 prompt + 345 completion', data: { totalTokens: 12345, estimated: false } } });
  assert.equal(progressLine(s), 'step 2/50 · 12.3k tokens · thinking');
  assert.equal(shortCount(999), '999');
  assert.equal(shortCount(250_000), '250k');
  assert.equal(reduce(s, { type: 'start', title: 'Agent', task: 'u' }).tokens, '');
});
