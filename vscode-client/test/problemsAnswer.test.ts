import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerFor } from '../src/problemsAnswer';

const upper = async (xs: string[]) => xs.map((x) => x.toUpperCase());

test('an open file answers its diagnostics, converted (an empty list is an answer)', async () => {
  assert.deepEqual(await answerFor(true, ['a', 'b'], upper), { diagnostics: ['A', 'B'] });
  assert.deepEqual(await answerFor(true, [], upper), { diagnostics: [] });
});

test('a closed file answers what is known of it, or null when nothing looked at it', async () => {
  assert.deepEqual(await answerFor(false, ['x'], upper), { diagnostics: ['X'] });
  assert.deepEqual(await answerFor(false, [], upper), { diagnostics: null });
});
