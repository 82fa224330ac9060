import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyTextEdits, baseName, describeChange, lineStats, planReview, WorkspaceEdit } from '../src/edits';

// Exactly what agent_lsp/server/edits.py sends (lsprotocol's camelCase JSON).
const EDIT_FILE: WorkspaceEdit = {
  documentChanges: [
    {
      textDocument: { uri: 'file:///ws/calc.py', version: 3 },
      edits: [{ annotationId: 'agent-lsp', range: { start: { line: 1, character: 11 }, end: { line: 1, character: 16 } }, newText: 'a + b' }],
    },
  ],
  changeAnnotations: { 'agent-lsp': { label: 'agent: edit_file calc.py', needsConfirmation: true, description: 'The agent wants to edit calc.py' } },
};
const NEW_FILE: WorkspaceEdit = {
  documentChanges: [
    { uri: 'file:///ws/new.md', kind: 'create', options: { overwrite: false, ignoreIfExists: true }, annotationId: 'agent-lsp' },
    {
      textDocument: { uri: 'file:///ws/new.md', version: null },
      edits: [{ annotationId: 'agent-lsp', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: '# hi\n' }],
    },
  ],
  changeAnnotations: { 'agent-lsp': { label: 'agent: write_file new.md', needsConfirmation: true, description: 'The agent wants to create new.md' } },
};

test('an edit_file edit: one file, its version, needs confirmation', () => {
  const plan = planReview(EDIT_FILE);
  assert.equal(plan.needsConfirmation, true);
  assert.deepEqual(plan.labels, ['agent: edit_file calc.py']);
  assert.equal(plan.unsupported, undefined);
  assert.equal(plan.files.length, 1);
  assert.equal(plan.files[0].version, 3);
  assert.equal(plan.files[0].create, false);
  const before = 'def add(a, b):\n    return a - b\n';
  assert.equal(applyTextEdits(before, plan.files[0].edits), 'def add(a, b):\n    return a + b\n');
});

test('a new file: CreateFile and its insert become one file marked create', () => {
  const plan = planReview(NEW_FILE);
  assert.equal(plan.files.length, 1);
  assert.equal(plan.files[0].create, true);
  assert.deepEqual(plan.files[0].createOptions, { overwrite: false, ignoreIfExists: true });
  assert.equal(applyTextEdits('', plan.files[0].edits), '# hi\n');
});

test('autoApprove edits need no confirmation; rename/delete are not for the diff review', () => {
  const auto: WorkspaceEdit = { ...EDIT_FILE, changeAnnotations: { 'agent-lsp': { label: 'x', needsConfirmation: false } } };
  assert.equal(planReview(auto).needsConfirmation, false);
  assert.equal(planReview({ changes: { 'file:///a': [] } }).needsConfirmation, false);
  const rename: WorkspaceEdit = { documentChanges: [{ kind: 'rename', oldUri: 'file:///a', newUri: 'file:///b' }] };
  assert.match(planReview(rename).unsupported ?? '', /rename/);
});

test('applyTextEdits: several edits in any order, CRLF, UTF-16 positions, clamping', () => {
  const text = 'a😀b\r\nsecond\r\nthird';
  const out = applyTextEdits(text, [
    { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 5 } }, newText: 'THIRD' },
    // the emoji is two UTF-16 code units: character 3 is "b"
    { range: { start: { line: 0, character: 3 }, end: { line: 0, character: 4 } }, newText: 'B' },
    // past the end of the line is clamped to the line's end (before \r\n)
    { range: { start: { line: 1, character: 6 }, end: { line: 1, character: 99 } }, newText: '!' },
  ]);
  assert.equal(out, 'a😀B\r\nsecond!\r\nTHIRD');
  // inserts at the same point keep their order
  const two = applyTextEdits('x', [
    { range: { start: { line: 0, character: 1 }, end: { line: 0, character: 1 } }, newText: '1' },
    { range: { start: { line: 0, character: 1 }, end: { line: 0, character: 1 } }, newText: '2' },
  ]);
  assert.equal(two, 'x12');
  // a position past the last line means the end of the text
  assert.equal(applyTextEdits('x\n', [{ range: { start: { line: 5, character: 0 }, end: { line: 5, character: 0 } }, newText: 'y' }]), 'x\ny');
  assert.throws(() =>
    applyTextEdits('abcdef', [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText: '' },
      { range: { start: { line: 0, character: 2 }, end: { line: 0, character: 4 } }, newText: '' },
    ]),
  /overlap/);
});

test('a whole-line edit across lines (write_file line diff)', () => {
  const before = 'one\ntwo\nthree\n';
  const out = applyTextEdits(before, [{ range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, newText: 'TWO\n2b\n' }]);
  assert.equal(out, 'one\nTWO\n2b\nthree\n');
});

test('lineStats and describeChange summarise for the notification', () => {
  assert.deepEqual(lineStats('a\nb\nc\n', 'a\nB\nc\n'), { added: 1, removed: 1 });
  assert.deepEqual(lineStats('', 'x\ny\n'), { added: 3, removed: 0 });
  assert.deepEqual(lineStats('a\nb\n', 'a\nb\n'), { added: 0, removed: 0 });
  assert.equal(
    describeChange([{ uri: 'file:///ws/calc.py', create: false, before: 'x = a - b\n', after: 'x = a + b\n' }]),
    'edit calc.py (+1 −1)',
  );
  assert.equal(describeChange([{ uri: 'file:///ws/new%20file.md', create: true, before: '', after: '# hi' }]), 'create new file.md (+1)');
  assert.equal(baseName('file:///a/b/c%2B%2B.txt?x=1'), 'c++.txt');
});
