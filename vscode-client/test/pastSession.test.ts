import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentEvent } from '../src/agentState';
import { continueTask, sessionState } from '../src/pastSession';

const ev = (kind: string, text = '', data: Record<string, unknown> | null = null): AgentEvent => ({ kind, text, data });

test('a past session replays into the panel state: tasks, tools, question, answers, outcomes', () => {
  const s = sessionState([
    ev('task', 'Fix this problem in config.json:\n  missing comma'),
    ev('tool', 'read_file', { id: 'c1', name: 'read_file', arguments: '{"path": "config.json"}' }),
    ev('tool_result', '1: {', { id: 'c1', name: 'read_file', ok: true, result: '1: {' }),
    ev('tool', 'ask_user', { id: 'c2', name: 'ask_user', arguments: '{"question": "Sort the keys?"}' }),
    ev('tool_result', 'no', { id: 'c2', name: 'ask_user', ok: true, result: 'no' }),
    ev('text', 'Fixed.'),
    ev('answer', 'Fixed.', { status: 'done', steps: 3 }),
    ev('task', 'run the slow check'),
    ev('tool', 'bash', { id: 'c3', name: 'bash', arguments: '{"command": "sleep 45"}' }),
  ]);
  assert.equal(s.running, false);
  const kinds = s.entries.map((e) => e.kind);
  assert.deepEqual(kinds, ['task', 'tool', 'question', 'answer', 'task', 'tool', 'error']);
  assert.deepEqual(s.entries[0], { kind: 'task', text: 'Fix this problem in config.json:' });
  assert.deepEqual(s.entries[2], { kind: 'question', text: 'Sort the keys?', answer: 'no' });
  assert.deepEqual(s.entries[3], { kind: 'answer', text: 'Fixed.', status: 'done', steps: 3 });
  const slow = s.entries[5];
  assert.ok(slow.kind === 'tool' && slow.state === 'error' && slow.detail === 'sleep 45');
  assert.match(s.outcome, /did not finish/);
});

test('a failed turn shows its reason once', () => {
  const s = sessionState([ev('task', 't'), ev('error', 'model request failed: HTTP 503'), ev('task', 'u'), ev('answer', 'ok', { status: 'cancelled', steps: 1 })]);
  assert.deepEqual(s.entries.filter((e) => e.kind === 'error').length, 1);
  assert.equal(s.outcome, 'cancelled after 1 step');
});

test('continuing a session gives the new one the summary after the request', () => {
  assert.equal(continueTask(' add tests ', 'Session x:\n- Request: fix\n'), 'add tests\n\nFor context, a summary of an earlier session in this workspace:\nSession x:\n- Request: fix');
});
