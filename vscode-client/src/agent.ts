// The connection to `agent-lsp serve`: starting it, its settings, its tasks.
//
// The extension is a thin client of the server (docs/protocol.md): it advertises
// experimental.agentLsp.{stream,askUser}, shows `agentLsp/event` in the panel,
// answers `agentLsp/askUser` with an input box, reviews `workspace/applyEdit`
// (review.ts), and runs `agentLsp.runTask` / `agentLsp.fixDiagnostic` itself so the
// panel and the status bar know when a task starts and ends.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditRequest,
  ClientCapabilities,
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  StaticFeature,
} from 'vscode-languageclient/node';
import type { AgentEvent } from './agentState';
import { progressLine, taskTitle } from './agentState';
import type { AgentPanel } from './panel';
import type { ReviewController } from './review';
import { vscodeRipgrep } from './ripgrep';
import { commandLine, NoPython, Probe, resolveServerCommand, ServerCommand, ServerNotFound } from './serverCommand';
import { droppedKeys, LAUNCH_KEYS, launchValuesToConfirm, publicSettings, redact, sectionsByScope, SERVER_KEYS, serverSettings, ServerSettings } from './settings';
import type { Store } from './store';
import { DIAGNOSTICS, problemsFor } from './problems';

export const RUN_TASK = 'agentLsp.runTask';
export const FIX_DIAGNOSTIC = 'agentLsp.fixDiagnostic';
const CANCEL = 'agentLsp.cancel';
const NEW_SESSION = 'agentLsp.newSession';
const SHOW_MEMORY = 'agentLsp.showMemory';
const UNDO_TASK = 'agentLsp.undoTask';
const EVENT = 'agentLsp/event';
const ASK_USER = 'agentLsp/askUser';
export const SECRET_KEY = 'agentLsp.apiKey';
const LAUNCH_APPROVALS = 'agentLsp.launchApprovals'; // [folder, key, value] the person said yes to

interface TaskResult {
  status?: string;
  answer?: string;
  steps?: number;
}

/**
 * Tells the server this client wants `agentLsp/event` and answers `agentLsp/askUser`.
 * It also withdraws `window.workDoneProgress` (registered after the built-in features,
 * so it runs last): the events already drive the status bar item and the panel, and
 * the server's progress would add a second, rawer status bar entry for the same task.
 */
class AgentLspFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    experimental.agentLsp = { stream: true, askUser: true, diagnostics: true };
    capabilities.experimental = experimental;
    capabilities.window = { ...capabilities.window, workDoneProgress: false };
  }
  initialize(): void {}
  getState() {
    return { kind: 'static' as const };
  }
  clear(): void {}
}

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const probe: Probe = {
  isExecutable,
  hasAgentLsp(python: string): Promise<boolean> {
    return new Promise((resolve) => {
      execFile(python, ['-c', 'import agent_lsp'], { timeout: 15_000 }, (err) => resolve(!err));
    });
  },
  pythonVersion(python: string): Promise<[number, number] | undefined> {
    return new Promise((resolve) => {
      execFile(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { timeout: 15_000 }, (err, stdout) => {
        const m = /^(\d+)\.(\d+)\s*$/.exec(String(stdout ?? ''));
        resolve(!err && m ? [Number(m[1]), Number(m[2])] : undefined);
      });
    });
  },
};

/** The model the server uses: the setting, else the environment, else the server's default. */
export function currentModel(): string {
  return vscode.workspace.getConfiguration('agentLsp').get<string>('model')?.trim() || process.env.AGENT_MODEL || 'gpt-4o-mini';
}

/** The endpoint the server uses, by the same rule. */
export function currentBaseUrl(): string {
  return vscode.workspace.getConfiguration('agentLsp').get<string>('baseUrl')?.trim() || process.env.AGENT_BASE_URL || 'https://api.openai.com/v1';
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) return undefined;
  const lookup = async (): Promise<string | undefined> => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const envPath = api?.environments?.getActiveEnvironmentPath?.(resource);
    if (envPath?.path) {
      const env = await api.environments.resolveEnvironment?.(envPath);
      return env?.executable?.uri?.fsPath ?? envPath.path;
    }
    return api?.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
  };
  try {
    return await Promise.race([lookup(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000))]);
  } catch {
    return undefined;
  }
}

export class AgentClient implements vscode.Disposable {
  private client?: LanguageClient;
  private starting?: Promise<void>;
  private apiKey?: string;
  private lastSent?: ServerSettings;
  private busy = false;
  private startError?: string;
  private started = false;
  private readonly status: vscode.StatusBarItem;
  /** VS Code's own rg, passed to the server as rgPath (the bundled libs carry none). */
  private readonly rgPath = vscodeRipgrep(vscode.env.appRoot, process.platform, isExecutable);
  private statusTimer?: NodeJS.Timeout;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly store: Store,
    private readonly review: ReviewController,
    private readonly panel: AgentPanel,
  ) {
    this.status = vscode.window.createStatusBarItem('agentLsp.status', vscode.StatusBarAlignment.Left, -100);
    this.status.name = 'Agent';
    this.disposables.push(
      this.status,
      store.onDidChange(() => this.updateStatus()),
      context.secrets.onDidChange(async (e) => {
        if (e.key !== SECRET_KEY) return;
        this.apiKey = await context.secrets.get(SECRET_KEY);
        await this.pushSettings();
      }),
      vscode.workspace.onDidChangeConfiguration(async (e) => {
        if (e.affectsConfiguration('agentLsp.server')) {
          const choice = await vscode.window.showInformationMessage('Agent: the server setting changed.', 'Restart Server');
          if (choice) await this.restart();
        } else if (Object.keys(SERVER_KEYS).some((k) => e.affectsConfiguration(`agentLsp.${k}`))) {
          this.updateStatus();
          await this.pushSettings();
        }
      }),
    );
    this.updateStatus();
  }

  dispose(): void {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    for (const d of this.disposables) d.dispose();
  }

  /** The settings for the server: the agentLsp.* settings with the secret key merged in. */
  settings(): ServerSettings {
    const cfg = vscode.workspace.getConfiguration('agentLsp');
    // Only what was set (an unset key lets the server use its environment, $AGENT_*); the
    // repository's values of restricted keys go apart, through the server's trust question.
    const { own, workspace } = sectionsByScope((key) => cfg.inspect(key));
    return serverSettings(own, this.apiKey, this.rgPath, workspace);
  }

  // ------------------------------------------------------------------ lifecycle

  start(): Promise<void> {
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
        this.updateStatus();
      });
      this.updateStatus();
    }
    return this.starting;
  }

  /**
   * The server.* settings to start with. A value the workspace (the repository) sets names a
   * program to run, so it is used only once the person said yes to that exact value (kept in
   * globalState); until then, or after a no, the person's own value applies.
   */
  private async launchSettings(cfg: vscode.WorkspaceConfiguration): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const key of LAUNCH_KEYS) out[key] = cfg.get(key);
    const remembered = this.context.globalState.get<string[]>(LAUNCH_APPROVALS, []);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? '';
    const id = (key: string, value: unknown) => JSON.stringify([folder, key, value]);
    const ask = launchValuesToConfirm((key) => cfg.inspect(key), (key, value) => remembered.includes(id(key, value)));
    for (const { key, value, own } of ask) {
      const use = 'Use it';
      const answer = await vscode.window.showWarningMessage(
        `This workspace sets agentLsp.${key} to ${JSON.stringify(value)}: the extension would start that program. Use it?`,
        { modal: true, detail: 'It came with the workspace folder, not from your own settings.' },
        use,
        'Use my own setting',
      );
      if (answer === use) {
        await this.context.globalState.update(LAUNCH_APPROVALS, [...remembered, id(key, value)]);
      } else {
        out[key] = own;
      }
    }
    return out;
  }

  private async doStart(): Promise<void> {
    if (this.client) return;
    this.startError = undefined;
    this.apiKey = await this.context.secrets.get(SECRET_KEY);
    const cfg = vscode.workspace.getConfiguration('agentLsp');
    const launch = await this.launchSettings(cfg);
    let cmd: ServerCommand;
    try {
      cmd = await resolveServerCommand(
        {
          command: launch['server.command'] as string | string[] | undefined,
          python: launch['server.python'] as string | undefined,
          interpreter: (launch['server.command'] as string | string[] | undefined)?.length || launch['server.python']
            ? undefined
            : await pythonExtensionInterpreter(),
          workspaceFolders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
          envPath: process.env.PATH ?? '',
          platform: process.platform,
          importStrategy: launch['server.importStrategy'] as string | undefined,
          bundledLibs: this.bundledLibs(),
          envPythonPath: process.env.PYTHONPATH,
        },
        probe,
      );
    } catch (e) {
      if (e instanceof NoPython) {
        this.failNoPython(e.message);
        return;
      }
      const message = e instanceof ServerNotFound ? e.message : `cannot work out the server command: ${String(e)}`;
      this.failStart(message);
      return;
    }
    const extra = cmd.env ? ` with ${Object.entries(cmd.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : '';
    this.log.info(`starting the server: ${commandLine(cmd)}${extra} (from ${cmd.source})`);
    this.log.info(this.rgPath ? `rg for the server: ${this.rgPath}` : `VS Code's rg was not found under ${vscode.env.appRoot}`);
    const cwd = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args, // no `transport`: plain stdio, without the --stdio flag agent-lsp does not take
      options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: '1', ...cmd.env } },
    };
    const client = new LanguageClient('agentLsp', 'Agent', serverOptions, this.clientOptions());
    client.registerFeature(new AgentLspFeature());
    client.onNotification(EVENT, (event: AgentEvent) => this.store.dispatch({ type: 'event', event }));
    client.onRequest(ASK_USER, (params: { question?: unknown }, token) => this.askUser(params, token));
    client.onRequest(ApplyWorkspaceEditRequest.type, (params, token) => this.review.handle(client, params, token));
    client.onRequest(DIAGNOSTICS, (params: { uri?: unknown }) => problemsFor(client, params));
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) this.log.info('the server stopped');
      this.updateStatus();
    });
    this.client = client;
    this.started = false;
    try {
      await client.start();
      this.started = true;
      this.lastSent = this.settings();
      this.log.info(`server settings: ${JSON.stringify(publicSettings(this.lastSent))}`);
    } catch (e) {
      this.client = undefined;
      try {
        await client.dispose(2000);
      } catch {
        /* it never started */
      }
      this.failStart(`${commandLine(cmd)} failed: ${e instanceof Error ? e.message : String(e)}. See Agent: Show Log.`);
    }
  }

  /** bundled/libs of this .vsix, if the build put the server there. */
  private bundledLibs(): string | undefined {
    const libs = path.join(this.context.extensionPath, 'bundled', 'libs');
    return fs.existsSync(path.join(libs, 'agent_lsp', '__init__.py')) ? libs : undefined;
  }

  /** The one notification for "no Python >= 3.11": what was found and how to fix it. */
  private failNoPython(message: string): void {
    this.startError = message;
    this.log.error(`the server could not start: ${message}`);
    this.updateStatus();
    void vscode.window
      .showErrorMessage(`Agent: ${message}`, 'Download Python', 'Open Settings', 'Retry')
      .then(async (choice) => {
        if (choice === 'Download Python') await vscode.env.openExternal(vscode.Uri.parse('https://www.python.org/downloads/'));
        else if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'agentLsp.server.python');
        else if (choice === 'Retry') await this.start();
      });
  }

  private failStart(message: string): void {
    this.startError = message;
    this.log.error(`the server could not start: ${message}`);
    this.updateStatus();
    void vscode.window
      .showErrorMessage(`Agent: the agent-lsp server could not start. ${message}`, 'Open Settings', 'Show Log', 'Retry')
      .then(async (choice) => {
        if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'agentLsp.server');
        else if (choice === 'Show Log') this.log.show();
        else if (choice === 'Retry') await this.start();
      });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.review.cancelAll();
    if (client) {
      try {
        await client.dispose(3000);
      } catch (e) {
        this.log.warn(`stopping the server: ${String(e)}`);
      }
    }
    this.updateStatus();
  }

  async restart(): Promise<void> {
    if (this.starting) await this.starting;
    this.log.info('restarting the server');
    await this.stop();
    await this.start();
  }

  /**
   * The log channel as the language client gets it: the API key travels in
   * initializationOptions and the configuration, so a verbose LSP trace would print it.
   */
  private redactingLog(): vscode.LogOutputChannel {
    const writers = new Set(['append', 'appendLine', 'replace', 'trace', 'debug', 'info', 'warn', 'error']);
    return new Proxy(this.log, {
      get: (target, prop) => {
        const value = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        if (typeof prop === 'string' && writers.has(prop)) {
          return (...args: unknown[]) =>
            (value as (...a: unknown[]) => unknown).apply(target, args.map((a) => (typeof a === 'string' ? redact(a, this.apiKey) : a)));
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  }

  private clientOptions(): LanguageClientOptions {
    let restarts: number[] = [];
    const log = this.redactingLog();
    return {
      // Every file: the "Fix with agent" quick fix is offered on diagnostics from any source.
      documentSelector: [{ scheme: 'file' }],
      outputChannel: log,
      traceOutputChannel: log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => this.settings(),
      errorHandler: {
        error: (_error, _message, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
        closed: () => {
          // A server that never got through `initialize` is not restarted: start() reports it.
          if (!this.started) return { action: CloseAction.DoNotRestart, handled: true };
          const now = Date.now();
          restarts = restarts.filter((t) => now - t < 3 * 60_000);
          restarts.push(now);
          if (restarts.length > 4) {
            const message = 'Agent: the agent-lsp server stopped 5 times in 3 minutes and will not be restarted. See Agent: Show Log; then Agent: Restart Server.';
            return { action: CloseAction.DoNotRestart, message };
          }
          this.log.warn('the server stopped; restarting it');
          return { action: CloseAction.Restart, handled: true };
        },
      },
      middleware: {
        executeCommand: async (command, args, next) => {
          if (command === RUN_TASK || command === FIX_DIAGNOSTIC) return this.runTask(command, args);
          return next(command, args);
        },
        workspace: {
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return params.items.map((item, i) => (item.section === 'agentLsp' ? this.settings() : result[i]));
          },
        },
        // The server always offers "Ask agent about line N" (editors that pass only its own
        // diagnostics need it). In VS Code that would light the bulb on every line: keep it
        // for Ctrl+. / the context menu, leave it out of the automatic lightbulb.
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          if (!actions || context.triggerKind !== vscode.CodeActionTriggerKind.Automatic) return actions;
          return actions.filter((a) => !(a instanceof vscode.CodeAction && a.command?.command === RUN_TASK && !a.diagnostics?.length));
        },
      },
    };
  }

  // ------------------------------------------------------------------ settings

  async pushSettings(): Promise<void> {
    const client = this.client;
    if (!client || !client.isRunning()) return;
    const next = this.settings();
    const dropped = droppedKeys(this.lastSent, next);
    if (dropped.length) {
      // The server keeps a key it is not sent; only a restart brings back its default.
      if (this.busy) {
        this.log.info(`settings ${dropped.join(', ')} were removed; they take effect after the task (Agent: Restart Server)`);
      } else {
        this.log.info(`settings ${dropped.join(', ')} were removed; restarting the server to drop them`);
        await this.restart();
        return;
      }
    }
    this.lastSent = next;
    this.log.info(`server settings: ${JSON.stringify(publicSettings(next))}`);
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { agentLsp: next } });
  }

  // ------------------------------------------------------------------ tasks

  private async ready(): Promise<LanguageClient | undefined> {
    if (this.starting) await this.starting;
    if (!this.client) await this.start();
    const client = this.client;
    if (!client || !client.isRunning()) {
      const choice = await vscode.window.showErrorMessage(
        `Agent: the agent-lsp server is not running.${this.startError ? ` ${this.startError}` : ''}`,
        'Restart Server',
        'Show Log',
      );
      if (choice === 'Restart Server') await this.restart();
      else if (choice === 'Show Log') this.log.show();
      return undefined;
    }
    return client;
  }

  /** Run agentLsp.runTask / agentLsp.fixDiagnostic and follow it in the panel and the status bar. */
  async runTask(command: string, args: unknown[], shown?: string): Promise<TaskResult | undefined> {
    const client = await this.ready();
    if (!client) return undefined;
    if (this.busy) {
      const choice = await vscode.window.showWarningMessage('Agent: the agent is already working on a task.', 'Cancel It', 'Show Panel');
      if (choice === 'Cancel It') await this.cancel();
      else if (choice === 'Show Panel') await this.panel.reveal();
      return undefined;
    }
    const arg = (args[0] ?? {}) as Record<string, unknown>;
    let fileName: string | undefined;
    if (typeof arg.uri === 'string') {
      try {
        fileName = vscode.workspace.asRelativePath(vscode.Uri.parse(arg.uri), false);
      } catch {
        fileName = undefined;
      }
    }
    this.busy = true;
    void vscode.commands.executeCommand('setContext', 'agentLsp.running', true);
    this.store.dispatch({ type: 'start', title: command === FIX_DIAGNOSTIC ? 'Agent: fix' : 'Agent', task: shown ?? taskTitle(command, arg, fileName) });
    void this.panel.reveal();
    try {
      const result = (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as TaskResult | null;
      this.store.dispatch({ type: 'end', status: result?.status ?? 'done', answer: result?.answer, steps: result?.steps });
      if (result?.status === 'error') {
        void vscode.window.showErrorMessage(`Agent: ${result.answer || 'the task failed'}`, 'Show Log').then((c) => c && this.log.show());
      }
      return result ?? undefined;
    } catch (e) {
      const message = e instanceof ResponseError || e instanceof Error ? e.message : String(e);
      this.log.error(`${command} failed: ${message}`);
      this.store.dispatch({ type: 'end', error: message });
      void vscode.window.showErrorMessage(`Agent: ${message}`);
      return undefined;
    } finally {
      this.busy = false;
      this.review.cancelAll();
      void vscode.commands.executeCommand('setContext', 'agentLsp.running', false);
      this.updateStatus();
    }
  }

  async cancel(): Promise<void> {
    const client = this.client;
    if (!this.busy || !client?.isRunning()) {
      void vscode.window.showInformationMessage('Agent: no task is running.');
      return;
    }
    try {
      await client.sendRequest(ExecuteCommandRequest.type, { command: CANCEL, arguments: [] });
    } catch (e) {
      this.log.warn(`cancel failed: ${String(e)}`);
    }
    this.review.cancelAll();
  }

  /** Forget the conversation; false when it could not (a task runs, no server). */
  async newSession(): Promise<boolean> {
    if (this.busy) {
      const choice = await vscode.window.showWarningMessage('Agent: a task is running; cancel it first.', 'Cancel It');
      if (choice) await this.cancel();
      return false;
    }
    const client = await this.ready();
    if (!client) return false;
    try {
      await client.sendRequest(ExecuteCommandRequest.type, { command: NEW_SESSION, arguments: [] });
      this.store.dispatch({ type: 'clear' });
      vscode.window.setStatusBarMessage('Agent: new session — the conversation was forgotten', 4000);
      return true;
    } catch (e) {
      void vscode.window.showErrorMessage(`Agent: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }
  }

  /** A read-only server command (listSessions, showSession); errors reach the caller. */
  async query<T>(command: string, args: unknown[] = []): Promise<T | undefined> {
    const client = await this.ready();
    if (!client) return undefined;
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  /** The API key from the secret storage (for Agent: Select Model's GET /models). */
  async key(): Promise<string | undefined> {
    return this.context.secrets.get(SECRET_KEY);
  }

  /** The agent's memory of this workspace (a file in the server's state dir), opened for editing. */
  async showMemory(): Promise<void> {
    const client = await this.ready();
    if (!client) return;
    try {
      const result = (await client.sendRequest(ExecuteCommandRequest.type, { command: SHOW_MEMORY, arguments: [] })) as { path?: string };
      if (result?.path) await vscode.window.showTextDocument(vscode.Uri.file(result.path));
    } catch (e) {
      void vscode.window.showErrorMessage(`Agent: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** agentLsp.undoTask: the server proposes the undo as one edit (reviewed like any other) and says what it did. */
  async undoTask(): Promise<void> {
    if (this.busy) {
      void vscode.window.showWarningMessage('Agent: a task is running; cancel it before undoing the last one.');
      return;
    }
    const client = await this.ready();
    if (!client) return;
    try {
      const result = (await client.sendRequest(ExecuteCommandRequest.type, { command: UNDO_TASK, arguments: [] })) as
        | { undone?: boolean; message?: string }
        | undefined;
      if (result?.message) this.log.info(result.message);
    } catch (e) {
      void vscode.window.showErrorMessage(`Agent: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async askUser(params: { question?: unknown }, token: vscode.CancellationToken): Promise<{ answer: string }> {
    const question = typeof params?.question === 'string' ? params.question : String(params?.question ?? '');
    this.store.dispatch({ type: 'question', text: question });
    void this.panel.reveal();
    const answer = await vscode.window.showInputBox(
      { title: 'The agent asks', prompt: question, placeHolder: 'Your answer (Escape: no answer)', ignoreFocusOut: true },
      token,
    );
    this.store.dispatch({ type: 'answered', answer });
    return { answer: answer ?? '' };
  }

  // ------------------------------------------------------------------ status bar

  private updateStatus(): void {
    const s = this.store.state;
    const item = this.status;
    if (this.statusTimer) {
      clearTimeout(this.statusTimer);
      this.statusTimer = undefined;
    }
    item.backgroundColor = undefined;
    item.command = 'agent.showPanel';
    const model = currentModel();
    if (s.running) {
      item.text = `$(loading~spin) Agent: ${progressLine(s)}`;
      item.tooltip = `${s.title} (${model}): ${progressLine(s)} — click for the Agent panel (Agent: Cancel stops it)`;
    } else if (this.starting) {
      item.text = '$(sync~spin) Agent: starting';
      item.tooltip = 'Starting agent-lsp serve';
    } else if (!this.client?.isRunning()) {
      item.text = '$(error) Agent: not running';
      item.tooltip = `The agent-lsp server is not running${this.startError ? `: ${this.startError}` : ''}. Click to restart it.`;
      item.command = 'agent.restartServer';
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (s.outcome) {
      const icon = s.outcome.startsWith('done') ? '$(check)' : s.outcome.startsWith('failed') ? '$(error)' : '$(warning)';
      const tokens = s.tokens ? ` · ${s.tokens}` : '';
      item.text = `${icon} Agent: ${s.outcome.length > 50 ? s.outcome.slice(0, 49) + '…' : s.outcome}${tokens}`;
      item.tooltip = `Last task: ${s.outcome} — click for the Agent panel`;
      this.statusTimer = setTimeout(() => {
        this.statusTimer = undefined;
        item.text = `$(hubot) Agent: ${currentModel()}`;
      }, 15_000);
    } else {
      item.text = `$(hubot) Agent: ${model}`;
      item.tooltip = `agent-lsp is ready with ${model} — click for the Agent panel; Agent: Select Model to change it; Agent: Run Task… or Ctrl+. on a problem`;
    }
    item.show();
  }
}
