// A past session (agentLsp.showSession) as the panel's State, read-only: the server
// sends its events in the shape of agentLsp/event plus `task`, and they go through the
// same reducer as a live task's. Pure (no vscode import).

import { Action, AgentEvent, initialState, reduce, State } from './agentState';

export interface SessionBrief {
  id: string;
  started: string;
  title: string;
  status: string;
}

export interface SessionDetail extends SessionBrief {
  events: AgentEvent[];
  summary: string;
}

function parse(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === 'object') return raw as Record<string, unknown>;
  try {
    const v = typeof raw === 'string' ? JSON.parse(raw) : undefined;
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim())?.trim() ?? '';
}

/** The actions that replay the session: each task starts and ends as a live one does. */
export function sessionActions(events: AgentEvent[]): Action[] {
  const out: Action[] = [];
  let open = false;
  const asks = new Set<string>();
  for (const ev of events) {
    const data = ev.data ?? {};
    if (ev.kind === 'task') {
      if (open) out.push({ type: 'end', error: 'this task did not finish' });
      out.push({ type: 'start', title: 'Agent', task: firstLine(ev.text) || 'Task' });
      open = true;
    } else if (ev.kind === 'tool' && data.name === 'ask_user') {
      asks.add(String(data.id ?? ''));
      out.push({ type: 'question', text: String(parse(data.arguments).question ?? ev.text) });
    } else if (ev.kind === 'tool_result' && asks.has(String(data.id ?? ''))) {
      out.push({ type: 'answered', answer: String(data.result ?? ev.text) });
    } else if (ev.kind === 'answer') {
      out.push({ type: 'event', event: ev });
      out.push({ type: 'end', status: String(data.status ?? 'done'), answer: ev.text, steps: typeof data.steps === 'number' ? data.steps : undefined });
      open = false;
    } else if (ev.kind === 'error') {
      out.push({ type: 'event', event: ev });
      out.push({ type: 'end', error: ev.text });
      open = false;
    } else {
      out.push({ type: 'event', event: ev });
    }
  }
  if (open) out.push({ type: 'end', error: 'this task did not finish' });
  return out;
}

export function sessionState(events: AgentEvent[]): State {
  return sessionActions(events).reduce(reduce, initialState());
}

/** "Dec 1, 09:12" in the person's locale, for the quick pick; the raw text if it does not parse. */
export function startedLabel(started: string, now = new Date()): string {
  const d = new Date(started);
  if (Number.isNaN(d.getTime())) return started;
  const sameYear = d.getFullYear() === now.getFullYear();
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', ...(sameYear ? {} : { year: 'numeric' }) });
}

/** The task for a new session that continues a past one: the request, then the summary. */
export function continueTask(task: string, summary: string): string {
  return `${task.trim()}\n\nFor context, a summary of an earlier session in this workspace:\n${summary.trim()}`;
}
