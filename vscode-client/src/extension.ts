// Entry point: the output channel, the panel, the review, the server, and the palette commands.

import * as vscode from 'vscode';
import { AgentClient, currentBaseUrl, currentModel, FIX_DIAGNOSTIC, RUN_TASK, SECRET_KEY } from './agent';
import { diagnosticsAt } from './diagnostics';
import { ENDPOINTS, listModels } from './models';
import { pickPastSession } from './sessionView';
import { openSample } from './walkthrough';
import { AgentPanel } from './panel';
import { ReviewController } from './review';
import { Store } from './store';

let agent: AgentClient | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Agent', { log: true });
  const store = new Store();
  const review = new ReviewController(store, log);
  const panel = new AgentPanel(context.extensionUri, store, {
    run: (task) => void runTask(task),
    cancel: () => void agent?.cancel(),
    newSession: () => void agent?.newSession(),
    review: (id, decision) => review.decide(decision, id),
    showLog: () => log.show(),
  });
  const client = new AgentClient(context, log, store, review, panel);
  agent = client;
  context.subscriptions.push(log, store, review, panel, client);

  /** The active file (when it is in the workspace) and the selection, as runTask's context. */
  function editorContext(): { uri?: string; range?: object; note: string } {
    const editor = vscode.window.activeTextEditor;
    const doc = editor?.document;
    if (!editor || !doc || doc.uri.scheme !== 'file') return { note: 'no file goes along' };
    if (!vscode.workspace.getWorkspaceFolder(doc.uri)) return { note: `${doc.fileName} is outside the workspace, it does not go along` };
    const name = vscode.workspace.asRelativePath(doc.uri, false);
    const sel = editor.selection;
    if (sel.isEmpty) return { uri: doc.uri.toString(), note: `context: ${name}` };
    const range = {
      start: { line: sel.start.line, character: sel.start.character },
      end: { line: sel.end.line, character: sel.end.character },
    };
    const a = sel.start.line + 1;
    const b = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
    return { uri: doc.uri.toString(), range, note: `context: ${name}, ${a === b ? `line ${a}` : `lines ${a}-${b}`}` };
  }

  async function runTask(given?: string): Promise<void> {
    const ctx = editorContext();
    const task =
      typeof given === 'string' && given.trim()
        ? given.trim()
        : await vscode.window.showInputBox({
            title: 'Agent: Run Task',
            prompt: `What should the agent do? (${ctx.note})`,
            placeHolder: 'e.g. make the failing test pass',
            ignoreFocusOut: true,
          });
    if (!task?.trim()) return;
    const arg: Record<string, unknown> = { task: task.trim() };
    if (ctx.uri) arg.uri = ctx.uri;
    if (ctx.range) arg.range = ctx.range;
    await client.runTask(RUN_TASK, [arg]);
  }

  async function fixThis(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('Agent: open a file and put the cursor on a problem first.');
      return;
    }
    const doc = editor.document;
    const all = vscode.languages.getDiagnostics(doc.uri);
    const hits = diagnosticsAt(all, editor.selection.active);
    if (!hits.length) {
      const line = editor.selection.active.line;
      const choice = await vscode.window.showInformationMessage(
        `Agent: no problem at line ${line + 1}.`,
        `Ask About Line ${line + 1}`,
      );
      if (choice) {
        await client.runTask(RUN_TASK, [
          { uri: doc.uri.toString(), range: { start: { line, character: 0 }, end: { line, character: doc.lineAt(line).text.length } } },
        ]);
      }
      return;
    }
    let pick = hits[0];
    if (hits.length > 1) {
      const chosen = await vscode.window.showQuickPick(
        hits.map((d) => ({
          label: d.message.split('\n')[0],
          description: [d.source, d.code !== undefined ? String(typeof d.code === 'object' ? d.code.value : d.code) : '']
            .filter(Boolean)
            .join(' '),
          detail: `line ${d.range.start.line + 1}`,
          d,
        })),
        { title: 'Agent: Fix This', placeHolder: 'Which problem?' },
      );
      if (!chosen) return;
      pick = chosen.d;
    }
    const diagnostic = {
      range: {
        start: { line: pick.range.start.line, character: pick.range.start.character },
        end: { line: pick.range.end.line, character: pick.range.end.character },
      },
      severity: pick.severity + 1, // vscode 0..3 → LSP 1..4
      message: pick.message,
      ...(pick.source ? { source: pick.source } : {}),
      ...(pick.code !== undefined ? { code: typeof pick.code === 'object' ? pick.code.value : pick.code } : {}),
    };
    await client.runTask(FIX_DIAGNOSTIC, [{ uri: doc.uri.toString(), diagnostic }]);
  }

  /** Where a setting the person changes from a command goes: the workspace when it sets it there. */
  function target(key: string): vscode.ConfigurationTarget {
    const inspected = vscode.workspace.getConfiguration('agentLsp').inspect(key);
    return inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  }

  async function selectModel(): Promise<void> {
    const baseUrl = currentBaseUrl();
    const current = currentModel();
    const listed = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `Agent: asking ${baseUrl} for its models` },
      async () => listModels(baseUrl, await client.key()),
    );
    let model: string | undefined;
    const typeIt = '$(edit) Type a model id…';
    if (listed.ids.length) {
      const picked = await vscode.window.showQuickPick(
        [
          ...listed.ids.map((id) => ({ label: id, description: id === current ? 'current' : undefined })),
          { label: typeIt, description: 'a model the list does not show' },
        ],
        { title: `Agent: Select Model (${baseUrl})`, placeHolder: `Current: ${current}`, matchOnDescription: true },
      );
      if (!picked) return;
      model = picked.label === typeIt ? undefined : picked.label;
      if (model === undefined) model = await askModel(current, undefined);
    } else {
      model = await askModel(current, listed.error);
    }
    if (!model?.trim()) return;
    await vscode.workspace.getConfiguration('agentLsp').update('model', model.trim(), target('model'));
    vscode.window.setStatusBarMessage(`Agent: model ${model.trim()}`, 4000);
  }

  function askModel(current: string, why: string | undefined): Thenable<string | undefined> {
    return vscode.window.showInputBox({
      title: 'Agent: Select Model',
      prompt: why ? `The endpoint did not list its models (${why}). Type the model id.` : 'Type the model id.',
      value: current,
      ignoreFocusOut: true,
    });
  }

  async function chooseEndpoint(): Promise<void> {
    const picked = await vscode.window.showQuickPick(
      ENDPOINTS.map((e) => ({ label: e.label, description: e.baseUrl, detail: e.detail, e })),
      { title: 'Agent: Choose Endpoint', placeHolder: 'Fills agentLsp.baseUrl and agentLsp.model (change them later in the settings)' },
    );
    if (!picked) return;
    const cfg = vscode.workspace.getConfiguration('agentLsp');
    await cfg.update('baseUrl', picked.e.baseUrl, target('baseUrl'));
    await cfg.update('model', picked.e.model, target('model'));
    const next = picked.e.needsKey && !(await context.secrets.get(SECRET_KEY)) ? 'Set API Key' : undefined;
    const choice = await vscode.window.showInformationMessage(
      `Agent: using ${picked.e.label} (${picked.e.baseUrl}) with ${picked.e.model}.`,
      ...(next ? [next] : []),
      'Select Model',
    );
    if (choice === 'Set API Key') await setApiKey();
    else if (choice === 'Select Model') await selectModel();
  }

  async function setApiKey(): Promise<void> {
    const has = !!(await context.secrets.get(SECRET_KEY));
    const value = await vscode.window.showInputBox({
      title: 'Agent: Set API Key',
      prompt: `The API key for agentLsp.baseUrl, kept in VS Code's secret storage (never in settings.json).${has ? ' A key is set; leave empty to remove it.' : ''}`,
      placeHolder: 'sk-…',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return;
    if (value.trim()) {
      await context.secrets.store(SECRET_KEY, value.trim());
      void vscode.window.showInformationMessage('Agent: API key saved in the secret storage.');
    } else if (has) {
      await context.secrets.delete(SECRET_KEY);
      void vscode.window.showInformationMessage('Agent: API key removed.');
    }
  }

  context.subscriptions.push(
    vscode.commands.registerCommand('agent.runTask', (task?: string) => runTask(task)),
    vscode.commands.registerCommand('agent.fixThis', fixThis),
    vscode.commands.registerCommand('agent.cancel', () => client.cancel()),
    vscode.commands.registerCommand('agent.newSession', () => client.newSession()),
    vscode.commands.registerCommand('agent.showMemory', () => client.showMemory()),
    vscode.commands.registerCommand('agent.undoTask', () => client.undoTask()),
    vscode.commands.registerCommand('agent.setApiKey', setApiKey),
    vscode.commands.registerCommand('agent.showLog', () => log.show()),
    vscode.commands.registerCommand('agent.restartServer', () => client.restart()),
    vscode.commands.registerCommand('agent.showPanel', () => panel.reveal()),
    vscode.commands.registerCommand('agent.selectModel', selectModel),
    vscode.commands.registerCommand('agent.chooseEndpoint', chooseEndpoint),
    vscode.commands.registerCommand('agent.openSample', () => openSample(context)),
    vscode.commands.registerCommand('agent.pastSessions', () =>
      pickPastSession(
        {
          query: (command, args) => client.query(command, args),
          newSession: () => client.newSession(),
          runTask: (task) => runTask(task),
        },
        context.extensionUri,
      ),
    ),
    vscode.commands.registerCommand('agent.review.accept', () => {
      if (!review.decide('accept')) void vscode.window.showInformationMessage('Agent: no edit is waiting for review.');
    }),
    vscode.commands.registerCommand('agent.review.reject', () => {
      if (!review.decide('reject')) void vscode.window.showInformationMessage('Agent: no edit is waiting for review.');
    }),
  );

  void client.start();
}

export async function deactivate(): Promise<void> {
  await agent?.stop();
  agent = undefined;
}
