import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnosticsAt } from '../src/diagnostics';

const d = (sl: number, sc: number, el: number, ec: number, severity: number, message: string) => ({
  range: { start: { line: sl, character: sc }, end: { line: el, character: ec } },
  severity,
  message,
});

test('the diagnostics under the cursor, errors and tight ranges first', () => {
  const diags = [d(0, 0, 10, 0, 1, 'wide warning'), d(3, 4, 3, 9, 0, 'error'), d(3, 0, 3, 20, 0, 'wide error'), d(5, 0, 5, 2, 0, 'elsewhere')];
  assert.deepEqual(diagnosticsAt(diags, { line: 3, character: 5 }).map((x) => x.message), ['error', 'wide error', 'wide warning']);
  // the end of a range counts (the cursor right after a word)
  assert.deepEqual(diagnosticsAt(diags, { line: 3, character: 9 }).map((x) => x.message), ['error', 'wide error', 'wide warning']);
});

test('nothing at the cursor: the diagnostics of its line', () => {
  const diags = [d(2, 10, 2, 12, 1, 'later on the line'), d(7, 0, 7, 1, 0, 'other line')];
  assert.deepEqual(diagnosticsAt(diags, { line: 2, character: 0 }).map((x) => x.message), ['later on the line']);
  assert.deepEqual(diagnosticsAt(diags, { line: 4, character: 0 }), []);
});
