// What the Agent panel shows, as a reducer over the server's `agentLsp/event`
// notifications and the client's own start/end/review/question actions.
// Pure (no vscode import): the extension keeps one State and sends the panel the
// entries that changed.

export interface AgentEvent {
  kind: string;
  text: string;
  data?: Record<string, unknown> | null;
}

export interface Todo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed' | string;
}

export type Entry =
  | { kind: 'task'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; title: string; detail: string; state: 'running' | 'ok' | 'error'; result: string; parent?: string }
  | { kind: 'status'; text: string }
  | { kind: 'error'; text: string }
  | { kind: 'answer'; text: string; status: string; steps: number }
  | { kind: 'review'; id: string; title: string; state: 'pending' | 'accepted' | 'rejected' | 'failed' }
  | { kind: 'question'; text: string; answer?: string };

export interface State {
  running: boolean;
  title: string;
  /** One line for the status bar: the running tool, or "thinking". */
  activity: string;
  steps: number;
  /** The running task's step (from the server's `step` events) and its limit. */
  step: number;
  maxSteps: number;
  /** Tokens the running (or last) task used, when the server reports them. */
  entries: Entry[];
  /** revs[i] changes whenever entries[i] changes, so the panel re-renders only those. */
  revs: number[];
  todos: Todo[];
  /** The outcome of the last task: "done in 3 steps", "cancelled", "failed: …". */
  outcome: string;
  /** How many entries were dropped from the front (the panel keeps the last MAX_ENTRIES). */
  dropped: number;
  /** The running task's tokens so far ("12.3k tokens", "~800 tokens" when estimated), from `usage` events. */
  tokens: string;
  rev: number;
}

export type Action =
  | { type: 'start'; title: string; task: string }
  | { type: 'event'; event: AgentEvent }
  | { type: 'end'; status?: string; answer?: string; steps?: number; error?: string }
  | { type: 'review'; id: string; title: string }
  | { type: 'reviewed'; id: string; state: 'accepted' | 'rejected' | 'failed' }
  | { type: 'question'; text: string }
  | { type: 'answered'; answer: string | undefined }
  | { type: 'clear' };

export function initialState(): State {
  return { running: false, title: '', activity: '', steps: 0, step: 0, maxSteps: 0, entries: [], revs: [], todos: [], outcome: '', dropped: 0, rev: 0, tokens: '' };
}

export const MAX_ENTRIES = 500;

function parseArgs(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw === 'string') {
    try {
      const v = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v;
    } catch {
      /* partial or malformed: shown raw */
    }
  }
  return {};
}

function oneLine(s: string, max = 120): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/** A tool call as a person reads it: a short title and a detail (the command, the path, …). */
export function describeTool(name: string, rawArgs: unknown): { title: string; detail: string } {
  const a = parseArgs(rawArgs);
  const str = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : '');
  switch (name) {
    case 'bash':
      return { title: 'Run', detail: oneLine(str('command'), 200) };
    case 'read_file': {
      const range = a.start || a.end ? ` (lines ${a.start ?? 1}-${a.end ?? 'end'})` : '';
      return { title: 'Read', detail: str('path') + range };
    }
    case 'edit_file':
      return { title: 'Edit', detail: str('path') };
    case 'write_file':
      return { title: 'Write', detail: str('path') };
    case 'list_files':
      return { title: 'List', detail: [str('path') || '.', str('pattern')].filter(Boolean).join(' ') };
    case 'grep':
      return { title: 'Search', detail: `${str('regex')}${str('path') ? ` in ${str('path')}` : ''}` };
    case 'todo_write':
      return { title: 'Plan', detail: Array.isArray(a.todos) ? `${a.todos.length} steps` : '' };
    case 'ask_user':
      return { title: 'Ask', detail: oneLine(str('question')) };
    case 'web_search':
      return { title: 'Web search', detail: str('query') };
    case 'fetch_url':
      return { title: 'Fetch', detail: str('url') };
    case 'spawn_agent':
      return { title: 'Helper', detail: oneLine(str('task')) };
    case 'remember':
      return { title: 'Remember', detail: oneLine(str('note')) };
    case 'forget':
      return { title: 'Forget', detail: str('match') };
    default: {
      const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
      if (mcp) return { title: `${mcp[1]}: ${mcp[2]}`, detail: oneLine(JSON.stringify(a)) };
      const text = typeof rawArgs === 'string' ? rawArgs : JSON.stringify(rawArgs ?? {});
      return { title: name || 'tool', detail: oneLine(text) };
    }
  }
}

/** "done in 3 steps" / "cancelled after 1 step" / "failed: …", as the server words it. */
export function outcomeLine(status: string | undefined, steps: number | undefined, answer?: string): string {
  const n = steps ?? 0;
  const s = `${n} step${n === 1 ? '' : 's'}`;
  switch (status) {
    case 'done':
      return `done in ${s}`;
    case 'cancelled':
      return `cancelled after ${s}`;
    case 'stepLimit':
      return `stopped at the step limit after ${s}`;
    case 'tokenLimit':
      return `stopped at maxTaskTokens after ${s}`;
    case 'loopGuard':
      return `stopped by the loop guard after ${s}`;
    case 'compactionLimit':
      return `stopped: the context filled up after ${s}`;
    default:
      return `failed: ${oneLine(answer || status || 'unknown error', 200)}`;
  }
}

/** "12.3k tokens" from a `usage` event's data; "~" in front when the server sent no counts. */
export function tokensLabel(data: Record<string, unknown> | null | undefined): string {
  const n = Number(data?.totalTokens ?? 0);
  if (!Number.isFinite(n) || n <= 0) return '';
  const shown = n < 1000 ? String(Math.round(n)) : `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${data?.estimated ? '~' : ''}${shown} tokens`;
}

function todosOf(data: Record<string, unknown> | null | undefined): Todo[] {
  const raw = data?.todos;
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((t): t is Record<string, unknown> => !!t && typeof t === 'object')
    .map((t) => ({ content: String(t.content ?? ''), status: String(t.status ?? 'pending') }));
}

class Draft {
  entries: Entry[];
  revs: number[];
  dropped: number;
  constructor(
    readonly s: State,
    readonly rev: number,
  ) {
    this.entries = s.entries;
    this.revs = s.revs;
    this.dropped = s.dropped;
  }
  private own() {
    if (this.entries === this.s.entries) {
      this.entries = [...this.s.entries];
      this.revs = [...this.s.revs];
    }
  }
  push(e: Entry) {
    this.own();
    this.entries.push(e);
    this.revs.push(this.rev);
    if (this.entries.length > MAX_ENTRIES) {
      const n = this.entries.length - MAX_ENTRIES;
      this.entries.splice(0, n);
      this.revs.splice(0, n);
      this.dropped += n;
    }
  }
  set(i: number, e: Entry) {
    this.own();
    this.entries[i] = e;
    this.revs[i] = this.rev;
  }
  last(): Entry | undefined {
    return this.entries[this.entries.length - 1];
  }
  findLast<K extends Entry['kind']>(kind: K, pred: (e: Extract<Entry, { kind: K }>) => boolean): number {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (e.kind === kind && pred(e as Extract<Entry, { kind: K }>)) return i;
    }
    return -1;
  }
}

export function reduce(s: State, action: Action): State {
  const rev = s.rev + 1;
  const d = new Draft(s, rev);
  let { running, title, activity, steps, step, maxSteps, tokens, todos, outcome } = s;
  switch (action.type) {
    case 'clear':
      return { ...initialState(), running: s.running, title: s.title, activity: s.activity, step: s.step, maxSteps: s.maxSteps, dropped: s.dropped + s.entries.length, rev, tokens: s.tokens };
    case 'start':
      running = true;
      title = action.title;
      activity = 'thinking';
      steps = 0;
      step = 0;
      outcome = '';
      tokens = '';
      todos = [];
      d.push({ kind: 'task', text: action.task });
      break;
    case 'event': {
      const ev = action.event;
      const data = ev.data ?? {};
      switch (ev.kind) {
        case 'step':
          step = typeof data.step === 'number' ? data.step : step + 1;
          if (typeof data.maxSteps === 'number') maxSteps = data.maxSteps;
          break;
        case 'text': {
          const last = d.last();
          if (last?.kind === 'text') d.set(d.entries.length - 1, { kind: 'text', text: last.text + ev.text });
          else if (ev.text) d.push({ kind: 'text', text: ev.text });
          activity = 'writing';
          break;
        }
        case 'tool': {
          const name = String(data.name ?? '');
          // The plan shows in the todo list and a question as its own entry, not as steps.
          if (name === 'todo_write' || name === 'ask_user') break;
          const { title: t, detail } = describeTool(name, data.arguments);
          // A spawn_agent child's step names the parent's call: shown nested under it.
          const parent = data.parent ? { parent: String(data.parent) } : {};
          d.push({ kind: 'tool', id: String(data.id ?? ''), name, title: t, detail: detail || ev.text, state: 'running', result: '', ...parent });
          activity = oneLine(`${t} ${detail}`, 50);
          break;
        }
        case 'tool_result': {
          const id = String(data.id ?? '');
          const i = d.findLast('tool', (e) => e.state === 'running' && (e.id === id || !id));
          const ok = data.ok !== false;
          if (i >= 0) {
            const e = d.entries[i] as Extract<Entry, { kind: 'tool' }>;
            d.set(i, { ...e, state: ok ? 'ok' : 'error', result: ev.text });
          }
          activity = 'thinking';
          break;
        }
        case 'todo':
          todos = todosOf(data);
          break;
        case 'usage':
          tokens = tokensLabel(data);
          break;
        case 'status':
          d.push({ kind: 'status', text: ev.text });
          break;
        case 'error':
          d.push({ kind: 'error', text: ev.text });
          outcome = outcomeLine('error', steps, ev.text);
          break;
        case 'answer': {
          const status = String(data.status ?? 'done');
          steps = typeof data.steps === 'number' ? data.steps : steps;
          const text = ev.text ?? '';
          const last = d.last();
          // The streamed text of the final reply and the answer are the same words: keep one.
          if (last?.kind === 'text' && text.trim().startsWith(last.text.trim())) {
            d.set(d.entries.length - 1, { kind: 'answer', text, status, steps });
          } else {
            d.push({ kind: 'answer', text, status, steps });
          }
          outcome = outcomeLine(status, steps, text);
          break;
        }
        default:
          break;
      }
      break;
    }
    case 'end': {
      running = false;
      activity = '';
      for (let i = 0; i < d.entries.length; i++) {
        const e = d.entries[i];
        if (e.kind === 'tool' && e.state === 'running') {
          d.set(i, { ...e, state: 'error', result: e.result || (action.status === 'cancelled' ? 'cancelled' : 'stopped') });
        }
      }
      if (action.error) {
        const i = d.findLast('error', () => true);
        if (i < 0 || (d.entries[i] as { text: string }).text !== action.error) d.push({ kind: 'error', text: action.error });
        outcome = outcomeLine('error', steps, action.error);
      } else if (action.status) {
        steps = action.steps ?? steps;
        const sawAnswer = d.findLast('answer', () => true) > d.findLast('task', () => true);
        const sawError = d.findLast('error', () => true) > d.findLast('task', () => true);
        if (!sawAnswer && !sawError) {
          if (action.status === 'error') d.push({ kind: 'error', text: action.answer || 'the task failed' });
          else d.push({ kind: 'answer', text: action.answer ?? '', status: action.status, steps });
        }
        outcome = outcomeLine(action.status, steps, action.answer);
      }
      break;
    }
    case 'review':
      d.push({ kind: 'review', id: action.id, title: action.title, state: 'pending' });
      activity = `review: ${action.title}`;
      break;
    case 'reviewed': {
      const i = d.findLast('review', (e) => e.id === action.id);
      if (i >= 0) d.set(i, { ...(d.entries[i] as Extract<Entry, { kind: 'review' }>), state: action.state });
      if (running) activity = 'thinking';
      break;
    }
    case 'question':
      d.push({ kind: 'question', text: action.text });
      activity = 'waiting for your answer';
      break;
    case 'answered': {
      const i = d.findLast('question', (e) => e.answer === undefined);
      if (i >= 0) d.set(i, { ...(d.entries[i] as Extract<Entry, { kind: 'question' }>), answer: action.answer ?? '' });
      if (running) activity = 'thinking';
      break;
    }
  }
  return { running, title, activity, steps, step, maxSteps, tokens, entries: d.entries, revs: d.revs, todos, outcome, dropped: d.dropped, rev };
}

/** "12.3k" for the status bar. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** The status bar's text for a running task: "step 3/50 · 12.3k tokens · Read a.py". */
export function progressLine(s: State): string {
  const parts: string[] = [];
  if (s.step) parts.push(s.maxSteps ? `step ${s.step}/${s.maxSteps}` : `step ${s.step}`);
  if (s.tokens) parts.push(s.tokens);
  parts.push(s.activity || 'working');
  return parts.join(' · ');
}

/** The indexes of entries that changed since `sinceRev`; a shorter list than before means a reset. */
export function changedSince(s: State, sinceRev: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.revs.length; i++) if (s.revs[i] > sinceRev) out.push(i);
  return out;
}

/** A human-readable one-liner for what a task was asked, for the panel's task entry. */
export function taskTitle(command: string, arg: Record<string, unknown> | undefined, fileName?: string): string {
  if (command === 'agentLsp.fixDiagnostic') {
    const d = (arg?.diagnostic ?? {}) as Record<string, unknown>;
    const line = ((d.range as Range | undefined)?.start?.line ?? 0) + 1;
    const where = fileName ? ` (${fileName}:${line})` : '';
    return `Fix: ${oneLine(String(d.message ?? 'the problem'), 200)}${where}`;
  }
  if (typeof arg?.task === 'string' && arg.task.trim()) {
    return arg.task.trim() + (fileName ? `  — ${fileName}` : '');
  }
  const r = arg?.range as Range | undefined;
  if (r && fileName) {
    const a = r.start.line + 1;
    const b = r.end.character === 0 && r.end.line > r.start.line ? r.end.line : r.end.line + 1;
    return `Look at ${a === b ? `line ${a}` : `lines ${a}-${b}`} of ${fileName}`;
  }
  return 'Task';
}

interface Range {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** What the panel's script needs to bring its view from `sinceRev` to `s` (sinceRev -1: everything). */
export interface PanelPatch {
  type: 'patch';
  rev: number;
  /** Entries with an absolute index below `dropped` or at/after `dropped + length` are gone. */
  dropped: number;
  length: number;
  changes: [number, Entry][];
  header: { running: boolean; title: string; activity: string; outcome: string; todos: Todo[] };
}

export function panelPatch(s: State, sinceRev: number): PanelPatch {
  return {
    type: 'patch',
    rev: s.rev,
    dropped: s.dropped,
    length: s.entries.length,
    changes: changedSince(s, sinceRev).map((i) => [s.dropped + i, s.entries[i]] as [number, Entry]),
    header: { running: s.running, title: s.title, activity: s.activity, outcome: s.outcome, todos: s.todos },
  };
}
