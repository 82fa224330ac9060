import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderMarkdown } from '../src/webview/markdown';

test('HTML from the model is escaped, never run', () => {
  const html = renderMarkdown('<img src=x onerror=alert(1)> **<b>bold</b>** `<script>`');
  assert.ok(!html.includes('<img'));
  assert.ok(!html.includes('<script>'));
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
  assert.ok(html.includes('<strong>&lt;b&gt;bold&lt;/b&gt;</strong>'));
  assert.ok(html.includes('<code>&lt;script&gt;</code>'));
});

test('fences, lists, headings and paragraphs', () => {
  const html = renderMarkdown('# Done\n\nFixed `add`:\n\n```python\nreturn a + b\n```\n- one\n- two *now*\n\n1. first\n2. second');
  assert.equal(
    html,
    '<h3>Done</h3><p>Fixed <code>add</code>:</p><pre data-lang="python"><code>return a + b</code></pre>' +
      '<ul><li>one</li><li>two <em>now</em></li></ul><ol><li>first</li><li>second</li></ol>',
  );
  assert.equal(renderMarkdown('a\nb'), '<p>a<br>b</p>');
  assert.equal(renderMarkdown('```\nunclosed <x>'), '<pre><code>unclosed &lt;x&gt;</code></pre>');
});
