// Past sessions: Agent: Past Sessions… lists this workspace's earlier sessions
// (agentLsp.listSessions) and opens the chosen one read-only in an editor tab
// (agentLsp.showSession), drawn by the Agent panel's own script. Its one button starts
// a new session that is given the old one's summary.

import * as vscode from 'vscode';
import { panelPatch } from './agentState';
import { panelHtml } from './panel';
import { continueTask, SessionBrief, SessionDetail, sessionState, startedLabel } from './pastSession';

export interface SessionHost {
  query<T>(command: string, args?: unknown[]): Promise<T | undefined>;
  newSession(): Promise<boolean>;
  runTask(task: string): Promise<void>;
}

export const LIST_SESSIONS = 'agentLsp.listSessions';
export const SHOW_SESSION = 'agentLsp.showSession';

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function pickPastSession(host: SessionHost, extensionUri: vscode.Uri): Promise<void> {
  let sessions: SessionBrief[] | undefined;
  try {
    sessions = await host.query<SessionBrief[]>(LIST_SESSIONS);
  } catch (e) {
    void vscode.window.showErrorMessage(`Agent: cannot list the past sessions: ${errorText(e)}`);
    return;
  }
  if (!sessions) return;
  if (!sessions.length) {
    void vscode.window.showInformationMessage('Agent: no earlier session in this workspace yet.');
    return;
  }
  const chosen = await vscode.window.showQuickPick(
    sessions.map((s) => ({ label: s.title || '(no title)', description: s.status, detail: startedLabel(s.started), s })),
    { title: 'Agent: Past Sessions', placeHolder: 'Reopen a session of this workspace (read-only)', matchOnDetail: true },
  );
  if (chosen) await openPastSession(host, extensionUri, chosen.s.id);
}

export async function openPastSession(host: SessionHost, extensionUri: vscode.Uri, id: string): Promise<void> {
  let detail: SessionDetail | undefined;
  try {
    detail = await host.query<SessionDetail>(SHOW_SESSION, [{ id }]);
  } catch (e) {
    void vscode.window.showErrorMessage(`Agent: cannot open the session: ${errorText(e)}`);
    return;
  }
  if (!detail) return;
  const session = detail;
  const view = vscode.window.createWebviewPanel('agentLsp.session', `Agent: ${session.title || session.id}`, vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  });
  const state = sessionState(session.events);
  view.webview.html = panelHtml(view.webview, extensionUri, { title: session.title, meta: `${startedLabel(session.started)} · ${session.status}` });
  view.webview.onDidReceiveMessage(async (m: { type?: string }) => {
    if (m?.type === 'ready') void view.webview.postMessage(panelPatch(state, -1));
    else if (m?.type === 'continue') {
      const task = await vscode.window.showInputBox({
        title: 'Agent: Continue in New Session',
        prompt: `What should the agent do next? The new session is given a summary of "${session.title}".`,
        ignoreFocusOut: true,
      });
      if (!task?.trim()) return;
      if (await host.newSession()) await host.runTask(continueTask(task, session.summary));
    }
  });
}
