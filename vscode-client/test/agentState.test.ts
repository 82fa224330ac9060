import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Action, AgentEvent, describeTool, initialState, MAX_ENTRIES, outcomeLine, panelPatch, reduce, State, taskTitle } from '../src/agentState';

const ev = (kind: string, text = '', data: Record<string, unknown> = {}): Action => ({ type: 'event', event: { kind, text, data } as AgentEvent });
const run = (...actions: Action[]): State => actions.reduce(reduce, initialState());

test('a whole task: streamed reasoning, tool calls, todos, the answer streamed then final', () => {
  const s = run(
    { type: 'start', title: 'Agent: fix', task: 'Fix: Expected comma (data.json:3)' },
    ev('text', 'Let me '),
    ev('text', 'fix it.'),
    ev('tool', '→ edit_file(...)', { id: 'c1', name: 'edit_file', arguments: '{"path": "data.json", "old": "1 2", "new": "1, 2"}' }),
    ev('tool', '→ todo_write(...)', { id: 't1', name: 'todo_write', arguments: '{"todos": []}' }),
    ev('tool_result', 'Plan (1/2 done):', { id: 't1', name: 'todo_write', ok: true }),
    ev('todo', '', { todos: [{ content: 'fix', status: 'completed' }, { content: 'check', status: 'in_progress' }] }),
    ev('tool_result', 'ok: edited data.json', { id: 'c1', name: 'edit_file', ok: true, result: 'ok: edited data.json (line 3 ...)' }),
    ev('tool', '→ bash(...)', { id: 'c2', name: 'bash', arguments: { command: 'python3 -m json.tool data.json' } }),
    ev('tool_result', 'error: exit 1', { id: 'c2', name: 'bash', ok: false }),
    ev('text', 'Fixed the '),
    ev('text', 'missing comma.'),
    ev('answer', 'Fixed the missing comma.', { status: 'done', steps: 3 }),
  );
  assert.equal(s.running, true);
  assert.deepEqual(
    s.entries.map((e) => e.kind),
    ['task', 'text', 'tool', 'tool', 'answer'],
  );
  assert.deepEqual(s.entries[1], { kind: 'text', text: 'Let me fix it.' });
  assert.deepEqual(s.entries[2], { kind: 'tool', id: 'c1', name: 'edit_file', title: 'Edit', detail: 'data.json', state: 'ok', result: 'ok: edited data.json' });
  assert.equal((s.entries[3] as { state: string }).state, 'error');
  assert.equal((s.entries[3] as { detail: string }).detail, 'python3 -m json.tool data.json');
  assert.deepEqual(s.entries[4], { kind: 'answer', text: 'Fixed the missing comma.', status: 'done', steps: 3 });
  assert.equal(s.todos.length, 2);
  assert.equal(s.outcome, 'done in 3 steps');
  const ended = reduce(s, { type: 'end', status: 'done', answer: 'Fixed the missing comma.', steps: 3 });
  assert.equal(ended.running, false);
  assert.equal(ended.entries.length, 5, 'the command result does not repeat the answer');
});

test('an answer without streaming, and an end without any answer event', () => {
  const a = run({ type: 'start', title: 'Agent', task: 't' }, ev('answer', 'Hi.', { status: 'done', steps: 1 }));
  assert.deepEqual(a.entries[1], { kind: 'answer', text: 'Hi.', status: 'done', steps: 1 });
  const b = run({ type: 'start', title: 'Agent', task: 't' }, { type: 'end', status: 'cancelled', answer: 'Cancelled.', steps: 2 });
  assert.deepEqual(b.entries[1], { kind: 'answer', text: 'Cancelled.', status: 'cancelled', steps: 2 });
  assert.equal(b.outcome, 'cancelled after 2 steps');
});

test('errors: an error event, a failed request, tools left running are closed', () => {
  const s = run(
    { type: 'start', title: 'Agent', task: 't' },
    ev('tool', 'x', { id: 'c1', name: 'bash', arguments: '{"command": "sleep 100"}' }),
    ev('error', 'model request failed after 5 attempts: HTTP 503'),
    { type: 'end', status: 'error', answer: 'model request failed after 5 attempts: HTTP 503', steps: 1 },
  );
  assert.deepEqual(s.entries.map((e) => e.kind), ['task', 'tool', 'error']);
  assert.equal((s.entries[1] as { state: string }).state, 'error');
  assert.match(s.outcome, /^failed: model request failed/);
  const r = run({ type: 'start', title: 'Agent', task: 't' }, { type: 'end', error: 'the agent is already working on a task' });
  assert.deepEqual(r.entries[1], { kind: 'error', text: 'the agent is already working on a task' });
});

test('reviews and questions are entries that get their outcome', () => {
  const s = run(
    { type: 'start', title: 'Agent', task: 't' },
    { type: 'review', id: '1', title: 'edit calc.py (+1 −1)' },
    { type: 'reviewed', id: '1', state: 'accepted' },
    { type: 'question', text: 'Which file?' },
    { type: 'answered', answer: 'b.py' },
  );
  assert.deepEqual(s.entries[1], { kind: 'review', id: '1', title: 'edit calc.py (+1 −1)', state: 'accepted' });
  assert.deepEqual(s.entries[2], { kind: 'question', text: 'Which file?', answer: 'b.py' });
});

test('panelPatch sends only what changed; clear and overflow drop entries', () => {
  let s = run({ type: 'start', title: 'Agent', task: 't' }, ev('text', 'a'));
  const first = panelPatch(s, -1);
  assert.deepEqual(first.changes.map(([i]) => i), [0, 1]);
  const rev = s.rev;
  s = reduce(s, ev('text', 'b'));
  const second = panelPatch(s, rev);
  assert.deepEqual(second.changes, [[1, { kind: 'text', text: 'ab' }]]);
  assert.equal(second.header.running, true);
  s = reduce(s, { type: 'clear' });
  const cleared = panelPatch(s, s.rev - 1);
  assert.deepEqual([cleared.dropped, cleared.length, cleared.changes.length], [2, 0, 0]);
  for (let i = 0; i < MAX_ENTRIES + 10; i++) s = reduce(s, ev('status', `s${i}`));
  assert.equal(s.entries.length, MAX_ENTRIES);
  assert.equal(s.dropped, 2 + 10);
  const last = panelPatch(s, s.rev - 1);
  assert.deepEqual(last.changes, [[2 + MAX_ENTRIES + 10 - 1, { kind: 'status', text: `s${MAX_ENTRIES + 9}` }]]);
});

test('describeTool reads arguments given as JSON text or objects', () => {
  assert.deepEqual(describeTool('bash', '{"command": "pytest -q\\n  tests"}'), { title: 'Run', detail: 'pytest -q tests' });
  assert.deepEqual(describeTool('read_file', { path: 'a.py', start: 3, end: 9 }), { title: 'Read', detail: 'a.py (lines 3-9)' });
  assert.deepEqual(describeTool('grep', { regex: 'TODO', path: 'src' }), { title: 'Search', detail: 'TODO in src' });
  assert.deepEqual(describeTool('bash', '{"command": "unterminated'), { title: 'Run', detail: '' });
  assert.deepEqual(describeTool('mystery', '{"x":1}'), { title: 'mystery', detail: '{"x":1}' });
});

test('usage events show the task\'s tokens so far; a new task starts from none', () => {
  let s = reduce(initialState(), { type: 'start', title: 'Agent', task: 'go' });
  s = reduce(s, { type: 'event', event: { kind: 'usage', text: 'tokens: 900 prompt + 40 completion', data: { totalTokens: 940, estimated: false } } });
  assert.equal(s.tokens, '940 tokens');
  s = reduce(s, { type: 'event', event: { kind: 'usage', text: '', data: { totalTokens: 12_345, estimated: true } } });
  assert.equal(s.tokens, '~12.3k tokens');
  s = reduce(s, { type: 'start', title: 'Agent', task: 'again' });
  assert.equal(s.tokens, '');
  assert.equal(outcomeLine('loopGuard', 4), 'stopped by the loop guard after 4 steps');
  assert.equal(outcomeLine('tokenLimit', 2), 'stopped at maxTaskTokens after 2 steps');
});

test('outcomeLine and taskTitle word things like the server', () => {
  assert.equal(outcomeLine('done', 1), 'done in 1 step');
  assert.equal(outcomeLine('stepLimit', 50), 'stopped at the step limit after 50 steps');
  assert.equal(outcomeLine('error', 0, 'boom'), 'failed: boom');
  const diag = { message: "Expected comma", range: { start: { line: 2, character: 4 }, end: { line: 2, character: 5 } } };
  assert.equal(taskTitle('agentLsp.fixDiagnostic', { uri: 'file:///ws/d.json', diagnostic: diag }, 'd.json'), 'Fix: Expected comma (d.json:3)');
  assert.equal(taskTitle('agentLsp.runTask', { task: 'add tests' }), 'add tests');
  assert.equal(taskTitle('agentLsp.runTask', { task: 'explain', uri: 'x' }, 'a.py'), 'explain  — a.py');
  assert.equal(
    taskTitle('agentLsp.runTask', { uri: 'x', range: { start: { line: 4, character: 0 }, end: { line: 6, character: 0 } } }, 'a.py'),
    'Look at lines 5-6 of a.py',
  );
});

test("a helper's steps nest under the spawn_agent call; MCP tools are named by server", () => {
  const s = run(
    { type: 'start', title: 'Agent', task: 'look around' },
    ev('tool', '→ spawn_agent(...)', { id: 'p1', name: 'spawn_agent', arguments: '{"task": "find the config loader"}' }),
    ev('tool', '  │ → grep(...)', { id: 'k1', name: 'grep', arguments: '{"regex": "load_config"}', parent: 'p1' }),
    ev('tool_result', '  │ src/config.py:3', { id: 'k1', name: 'grep', ok: true, parent: 'p1' }),
    ev('tool_result', 'Files the helper read: src/config.py', { id: 'p1', name: 'spawn_agent', ok: true }),
    ev('tool', '→ mcp__git__git_status(...)', { id: 'm1', name: 'mcp__git__git_status', arguments: '{"repo_path": "."}' }),
  );
  const [helper, step, mcp] = s.entries.slice(1) as Array<{ title: string; detail: string; state: string; parent?: string }>;
  assert.equal(helper.title, 'Helper');
  assert.equal(helper.detail, 'find the config loader');
  assert.equal(helper.state, 'ok');
  assert.equal(helper.parent, undefined);
  assert.equal(step.parent, 'p1');
  assert.equal(step.state, 'ok');
  assert.equal(mcp.title, 'git: git_status');
});
