// The Agent panel: a webview view in the bottom panel that shows the running task
// as it happens (streamed answer, tool calls, todo list, reviews, questions), with
// Cancel / New Session buttons and a box to ask for a new task.

import * as vscode from 'vscode';
import { panelPatch, State } from './agentState';
import type { Store } from './store';

export const PANEL_VIEW = 'agentLsp.panel';

export interface PanelActions {
  run(task: string): void;
  cancel(): void;
  newSession(): void;
  review(id: string, decision: 'accept' | 'reject'): void;
  showLog(): void;
}

export class AgentPanel implements vscode.WebviewViewProvider, vscode.Disposable {
  private view?: vscode.WebviewView;
  private sentRev = -1;
  private timer?: NodeJS.Timeout;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: Store,
    private readonly actions: PanelActions,
  ) {
    this.disposables.push(
      vscode.window.registerWebviewViewProvider(PANEL_VIEW, this, { webviewOptions: { retainContextWhenHidden: true } }),
      store.onDidChange(() => this.schedule()),
    );
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
  }

  get visible(): boolean {
    return !!this.view?.visible;
  }

  /** Show the panel without taking the focus from the editor. */
  async reveal(): Promise<void> {
    if (this.view) {
      this.view.show(true);
      return;
    }
    try {
      await vscode.commands.executeCommand(`${PANEL_VIEW}.focus`, { preserveFocus: true });
    } catch {
      /* the view is not registered yet */
    }
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.sentRev = -1;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, vscode.Uri.joinPath(this.extensionUri, 'media')] };
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage((m) => this.onMessage(m), undefined, this.disposables);
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) this.flush();
    });
  }

  private onMessage(m: { type?: string; task?: string; id?: string; decision?: string }): void {
    switch (m?.type) {
      case 'ready':
        this.sentRev = -1;
        this.flush();
        break;
      case 'run':
        if (typeof m.task === 'string' && m.task.trim()) this.actions.run(m.task.trim());
        break;
      case 'cancel':
        this.actions.cancel();
        break;
      case 'newSession':
        this.actions.newSession();
        break;
      case 'review':
        if (m.id && (m.decision === 'accept' || m.decision === 'reject')) this.actions.review(m.id, m.decision);
        break;
      case 'showLog':
        this.actions.showLog();
        break;
    }
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, 30);
  }

  private flush(): void {
    const view = this.view;
    if (!view) return;
    const state: State = this.store.state;
    if (state.rev === this.sentRev) return;
    const patch = panelPatch(state, this.sentRev);
    this.sentRev = state.rev;
    void view.webview.postMessage(patch);
  }

  private html(webview: vscode.Webview): string {
    return panelHtml(webview, this.extensionUri);
  }
}

/** The page of the Agent panel; `readOnly` (a past session) has no task box and, instead
 * of Cancel / New Session, one button that continues the session in a new one. */
export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri, readOnly?: { title: string; meta: string }): string {
    const nonce = Array.from({ length: 24 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'panel.css'));
    const esc = (t: string) => t.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
    const buttons = readOnly
      ? `<button id="continue" title="Start a new session that is given this session's summary">Continue in New Session</button>`
      : `<button id="cancel" class="danger" title="Cancel the running task (Agent: Cancel)" hidden>Cancel</button>
    <button id="new-session" class="secondary" title="Forget the conversation (Agent: New Session)">New Session</button>`;
    const footer = readOnly
      ? ''
      : `<footer>
  <textarea id="task" rows="2" placeholder="Ask the agent… (Enter to run, Shift+Enter for a new line; the active file goes along)"></textarea>
  <button id="run" title="Run the task">Run</button>
</footer>`;
    const meta = readOnly ? `<div id="session-meta" class="session-meta"><b>${esc(readOnly.title)}</b> <span>${esc(readOnly.meta)}</span> <span class="readonly-note">read-only</span></div>` : '';
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${webview.cspSource} data:`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Agent</title>
</head>
<body${readOnly ? ' class="readonly"' : ''}>
${meta}
<header id="header">
  <div id="status" class="status idle"><span id="status-icon"></span><span id="status-text">Idle</span></div>
  <div class="buttons">
    ${buttons}
  </div>
</header>
<section id="todos" hidden></section>
<main id="log" aria-live="polite">
  <div id="empty" class="empty">
    <p>No task yet. Pick <b>Fix with agent</b> from a lightbulb (Ctrl+.), run <b>Agent: Run Task…</b>, or ask below.</p>
  </div>
</main>
${footer}
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
