// The Agent panel's script (runs in the webview, bundled to dist/webview.js).
// It receives PanelPatch messages and updates only the entries that changed, so a
// streamed answer does not re-render the whole log.

import type { Entry, PanelPatch, Todo } from '../agentState';
import { renderMarkdown } from './markdown';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

const vscodeApi = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
// A past session's page (read-only) has no task box, Cancel or New Session.
const $$ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;

const log = $('log');
const empty = $('empty');
const statusBox = $('status');
const statusText = $('status-text');
const statusIcon = $('status-icon');
const cancelButton = $$<HTMLButtonElement>('cancel');
const todosBox = $('todos');
const taskInput = $$<HTMLTextAreaElement>('task');
const runButton = $$<HTMLButtonElement>('run');

const nodes = new Map<number, HTMLElement>();

function el(tag: string, cls?: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function button(label: string, cls: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', cls, label) as HTMLButtonElement;
  b.addEventListener('click', onClick);
  return b;
}

const TOOL_ICONS: Record<string, string> = { running: '⟳', ok: '✓', error: '✗' };
const TODO_ICONS: Record<string, string> = { pending: '○', in_progress: '◐', completed: '●' };

function render(e: Entry): HTMLElement {
  switch (e.kind) {
    case 'task': {
      const n = el('div', 'entry task');
      n.append(el('span', 'label', 'Task'), el('span', 'body', e.text));
      return n;
    }
    case 'text': {
      const n = el('div', 'entry text md');
      n.innerHTML = renderMarkdown(e.text);
      return n;
    }
    case 'answer': {
      const n = el('div', `entry answer ${e.status}`);
      const body = el('div', 'md');
      body.innerHTML = renderMarkdown(e.text || '(no answer)');
      n.append(body);
      return n;
    }
    case 'tool': {
      const n = el('div', `entry tool ${e.state}${e.parent ? ' child' : ''}`);
      n.dataset.tool = e.name;
      const head = el('div', 'tool-head');
      head.append(el('span', 'icon', TOOL_ICONS[e.state] ?? '•'), el('span', 'tool-title', e.title), el('code', 'tool-detail', e.detail));
      n.append(head);
      if (e.result) n.append(el('div', 'tool-result', e.result));
      return n;
    }
    case 'status':
      return el('div', 'entry status', e.text);
    case 'error':
      return el('div', 'entry error', e.text);
    case 'review': {
      const n = el('div', `entry review ${e.state}`);
      n.append(el('span', 'label', 'Review'), el('span', 'body', e.title));
      if (e.state === 'pending') {
        const row = el('span', 'review-buttons');
        row.append(
          button('Accept', 'primary', () => vscodeApi.postMessage({ type: 'review', id: e.id, decision: 'accept' })),
          button('Reject', 'secondary', () => vscodeApi.postMessage({ type: 'review', id: e.id, decision: 'reject' })),
        );
        n.append(row);
      } else {
        n.append(el('span', 'review-state', e.state));
      }
      return n;
    }
    case 'question': {
      const n = el('div', 'entry question');
      n.append(el('span', 'label', 'Question'), el('span', 'body', e.text));
      if (e.answer !== undefined) n.append(el('div', 'question-answer', e.answer ? `You: ${e.answer}` : '(no answer)'));
      return n;
    }
  }
}

function renderTodos(todos: Todo[]): void {
  todosBox.replaceChildren();
  todosBox.hidden = todos.length === 0;
  if (!todos.length) return;
  const done = todos.filter((t) => t.status === 'completed').length;
  todosBox.append(el('div', 'todos-title', `Plan ${done}/${todos.length}`));
  const list = el('ul');
  for (const t of todos) {
    const li = el('li', `todo ${t.status}`);
    li.append(el('span', 'icon', TODO_ICONS[t.status] ?? '○'), el('span', 'body', t.content));
    list.append(li);
  }
  todosBox.append(list);
}

function atBottom(): boolean {
  return log.scrollHeight - log.scrollTop - log.clientHeight < 40;
}

function apply(p: PanelPatch): void {
  const follow = atBottom();
  for (const [i, node] of nodes) {
    if (i < p.dropped || i >= p.dropped + p.length) {
      node.remove();
      nodes.delete(i);
    }
  }
  for (const [i, entry] of p.changes) {
    const fresh = render(entry);
    fresh.dataset.index = String(i);
    const old = nodes.get(i);
    if (old) old.replaceWith(fresh);
    else {
      // entries arrive in index order; find the first later node to insert before
      let before: HTMLElement | null = null;
      for (const [j, n] of nodes) if (j > i && (!before || j < Number(before.dataset.index))) before = n;
      log.insertBefore(fresh, before);
    }
    nodes.set(i, fresh);
  }
  empty.hidden = nodes.size > 0;

  const h = p.header;
  statusBox.className = `status ${h.running ? 'running' : 'idle'}`;
  statusIcon.textContent = h.running ? '⟳' : '';
  const activity = h.activity || 'working';
  statusText.textContent = h.running
    ? `${h.title || 'Agent'}: ${activity}${activity.endsWith('…') ? '' : '…'}`
    : h.outcome
      ? `Last task: ${h.outcome}`
      : 'Idle';
  if (cancelButton) cancelButton.hidden = !h.running;
  renderTodos(h.todos);
  if (follow) log.scrollTop = log.scrollHeight;
}

window.addEventListener('message', (ev: MessageEvent) => {
  const m = ev.data as PanelPatch;
  if (m?.type === 'patch') apply(m);
});

function run(): void {
  if (!taskInput) return;
  const task = taskInput.value.trim();
  if (!task) return;
  vscodeApi.postMessage({ type: 'run', task });
  taskInput.value = '';
}

runButton?.addEventListener('click', run);
taskInput?.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    run();
  }
});
cancelButton?.addEventListener('click', () => vscodeApi.postMessage({ type: 'cancel' }));
$$('new-session')?.addEventListener('click', () => vscodeApi.postMessage({ type: 'newSession' }));
$$('continue')?.addEventListener('click', () => vscodeApi.postMessage({ type: 'continue' }));

vscodeApi.postMessage({ type: 'ready' });
