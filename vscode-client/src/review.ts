// Review of the agent's edits: the server's `workspace/applyEdit` requests land here.
//
// VS Code opens edits whose change annotation says needsConfirmation in the
// Refactor Preview with every box unticked (Apply without ticking applies nothing),
// which is slow for the one-edit-at-a-time flow of an agent. In "diff" mode this
// shows a diff (text before vs the proposed text) with Accept / Reject in a
// notification, in the diff's title bar and in the Agent panel: one click. Accept
// applies the edit as a plain WorkspaceEdit (no annotation, so no second prompt)
// and saves the files, so the agent's commands see them and no "file changed on
// disk" conflict can appear. "refactorPreview" mode keeps the plain LSP path.

import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { applyTextEdits, baseName, describeChange, FileChange, planReview, WorkspaceEdit } from './edits';
import type { Store } from './store';

export const REVIEW_SCHEME = 'agent-lsp-review';
const ACCEPT = 'Accept';
const REJECT = 'Reject';

type Decision = 'accept' | 'reject';

interface Pending {
  id: string;
  title: string;
  uris: vscode.Uri[];
  decide: (d: Decision) => void;
}

interface Prepared {
  file: FileChange;
  uri: vscode.Uri;
  before: string;
  after: string;
}

export class ReviewController implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly pending = new Map<string, Pending>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private next = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly store: Store,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, this));
  }

  dispose(): void {
    this.cancelAll();
    this.changed.dispose();
    for (const d of this.disposables) d.dispose();
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  get reviewing(): boolean {
    return this.pending.size > 0;
  }

  /** Answer one `workspace/applyEdit`; requests are handled one after the other. */
  handle(client: LanguageClient, params: ApplyWorkspaceEditParams, token: vscode.CancellationToken): Promise<ApplyWorkspaceEditResult> {
    const run = this.queue.then(() => this.handleOne(client, params, token));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Accept or reject the review shown in the active editor, else the newest one. */
  decide(decision: Decision, id?: string): boolean {
    let p = id ? this.pending.get(id) : undefined;
    if (!p && !id) {
      const active = vscode.window.activeTextEditor?.document.uri;
      const activeId = active?.scheme === REVIEW_SCHEME ? new URLSearchParams(active.query).get('id') : null;
      p = (activeId && this.pending.get(activeId)) || [...this.pending.values()].pop();
    }
    if (!p) return false;
    p.decide(decision);
    return true;
  }

  /** Reject every open review (the task ended or was cancelled). */
  cancelAll(): void {
    for (const p of [...this.pending.values()]) p.decide('reject');
  }

  private async handleOne(
    client: LanguageClient,
    params: ApplyWorkspaceEditParams,
    token: vscode.CancellationToken,
  ): Promise<ApplyWorkspaceEditResult> {
    const mode = vscode.workspace.getConfiguration('agentLsp').get<string>('review.mode', 'diff');
    const edit = params.edit as unknown as WorkspaceEdit;
    const plan = planReview(edit);
    if (mode === 'refactorPreview' || plan.unsupported) {
      if (plan.unsupported) this.log.info(`review: ${plan.unsupported} cannot be shown as a diff; using VS Code's preview`);
      return this.applyThroughVsCode(client, params);
    }
    const stale = this.staleVersion(plan.files);
    if (stale) return { applied: false, failureReason: stale };

    if (!plan.needsConfirmation) {
      return this.applyAndSave(plan.files);
    }

    let prepared: Prepared[];
    try {
      prepared = await Promise.all(plan.files.map((f) => this.prepare(f)));
    } catch (e) {
      this.log.warn(`review: cannot compute the proposed text (${String(e)}); using VS Code's preview`);
      return this.applyThroughVsCode(client, params);
    }
    if (token.isCancellationRequested) return { applied: false, failureReason: 'cancelled' };

    const id = String(this.next++);
    const summary = describeChange(prepared.map((p) => ({ uri: p.file.uri, create: p.file.create, before: p.before, after: p.after })));
    const uris: vscode.Uri[] = [];
    for (const p of prepared) {
      const left = p.uri.with({ scheme: REVIEW_SCHEME, query: `id=${id}&side=before` });
      const right = p.uri.with({ scheme: REVIEW_SCHEME, query: `id=${id}&side=after` });
      this.contents.set(left.toString(), p.before);
      this.contents.set(right.toString(), p.after);
      uris.push(left, right);
    }

    let decided: Decision | undefined;
    const decision = await new Promise<Decision>((resolve) => {
      const finish = (d: Decision, fromToast = false) => {
        if (decided) return;
        decided = d;
        sub.dispose();
        this.pending.delete(id);
        void this.updateContext();
        // A notification cannot be closed by an extension: when the person decided elsewhere
        // (title bar, panel, keys), tuck the toasts into the notification centre so no stale
        // Accept / Reject stays in sight.
        if (!fromToast) void vscode.commands.executeCommand('notifications.hideToasts').then(undefined, () => undefined);
        resolve(d);
      };
      const sub = token.onCancellationRequested(() => finish('reject'));
      this.pending.set(id, { id, title: summary, uris, decide: finish });
      void this.updateContext();
      this.store.dispatch({ type: 'review', id, title: summary });
      void this.showDiffs(prepared, uris, id).catch((e) => this.log.warn(`review: cannot open the diff: ${String(e)}`));
      void vscode.window
        .showInformationMessage(`Agent wants to ${summary}. Review the diff, then:`, ACCEPT, REJECT)
        .then((choice) => {
          if (!choice) return; // dismissed (×): the review stays open in the diff and the panel
          if (decided) {
            void vscode.window.showInformationMessage(`Agent: that edit was already ${decided === 'accept' ? 'accepted' : 'rejected'}.`);
            return;
          }
          finish(choice === ACCEPT ? 'accept' : 'reject', true);
        });
    });

    await this.closeDiffs(uris);
    for (const u of uris) this.contents.delete(u.toString());

    if (decision === 'reject') {
      this.store.dispatch({ type: 'reviewed', id, state: 'rejected' });
      return { applied: false, failureReason: 'the person rejected the edit' };
    }
    const staleNow = this.staleVersion(plan.files);
    if (staleNow) {
      this.store.dispatch({ type: 'reviewed', id, state: 'failed' });
      return { applied: false, failureReason: staleNow };
    }
    const result = await this.applyAndSave(plan.files);
    this.store.dispatch({ type: 'reviewed', id, state: result.applied ? 'accepted' : 'failed' });
    return result;
  }

  /** The plain LSP path: VS Code's own handling (Refactor Preview for needsConfirmation), then save. */
  private async applyThroughVsCode(client: LanguageClient, params: ApplyWorkspaceEditParams): Promise<ApplyWorkspaceEditResult> {
    const plan = planReview(params.edit as unknown as WorkspaceEdit);
    const stale = this.staleVersion(plan.files);
    if (stale) return { applied: false, failureReason: stale };
    const converted = await client.protocol2CodeConverter.asWorkspaceEdit(params.edit);
    const applied = await vscode.workspace.applyEdit(converted);
    if (applied) await this.save(plan.files);
    return { applied };
  }

  private staleVersion(files: FileChange[]): string | undefined {
    for (const f of files) {
      if (f.version === null || f.version === undefined) continue;
      const doc = this.openDocument(f.uri);
      if (doc && doc.version !== f.version) {
        return `${baseName(f.uri)} changed (version ${doc.version}, the edit was made for ${f.version})`;
      }
    }
    return undefined;
  }

  private openDocument(uri: string): vscode.TextDocument | undefined {
    const key = vscode.Uri.parse(uri).toString();
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  }

  private async prepare(file: FileChange): Promise<Prepared> {
    const uri = vscode.Uri.parse(file.uri);
    const doc = this.openDocument(file.uri);
    let before = '';
    if (doc) before = doc.getText();
    else {
      try {
        before = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
      } catch (e) {
        if (!file.create) throw e;
      }
    }
    return { file, uri, before, after: applyTextEdits(before, file.edits) };
  }

  private async applyAndSave(files: FileChange[]): Promise<ApplyWorkspaceEditResult> {
    const we = new vscode.WorkspaceEdit();
    for (const f of files) {
      const uri = vscode.Uri.parse(f.uri);
      if (f.create) {
        we.createFile(uri, { overwrite: f.createOptions?.overwrite, ignoreIfExists: f.createOptions?.ignoreIfExists ?? true });
      }
      for (const e of f.edits) {
        const r = e.range;
        we.replace(uri, new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character), e.newText);
      }
    }
    let applied: boolean;
    try {
      applied = await vscode.workspace.applyEdit(we);
    } catch (e) {
      return { applied: false, failureReason: `VS Code could not apply the edit: ${String(e)}` };
    }
    if (!applied) return { applied: false, failureReason: 'VS Code could not apply the edit' };
    await this.save(files);
    return { applied: true };
  }

  /** Save what the edit touched, so the disk holds what the editor shows before the agent runs anything. */
  private async save(files: FileChange[]): Promise<void> {
    for (const f of files) {
      try {
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(f.uri));
        if (doc.isDirty && !(await doc.save())) this.log.warn(`review: could not save ${doc.uri.fsPath}`);
      } catch (e) {
        this.log.warn(`review: could not save ${f.uri}: ${String(e)}`);
      }
    }
  }

  private async showDiffs(prepared: Prepared[], uris: vscode.Uri[], id: string): Promise<void> {
    for (let i = prepared.length - 1; i >= 0; i--) {
      const p = prepared[i];
      const name = baseName(p.file.uri);
      const what = p.file.create ? 'new file' : 'proposed edit';
      await vscode.commands.executeCommand('vscode.diff', uris[2 * i], uris[2 * i + 1], `${name}: agent's ${what} (review ${id})`, {
        preview: false,
        preserveFocus: false,
      });
    }
  }

  private async closeDiffs(uris: vscode.Uri[]): Promise<void> {
    const ours = new Set(uris.map((u) => u.toString()));
    const tabs: vscode.Tab[] = [];
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        if (input instanceof vscode.TabInputTextDiff && (ours.has(input.original.toString()) || ours.has(input.modified.toString()))) {
          tabs.push(tab);
        }
      }
    }
    if (tabs.length) {
      try {
        await vscode.window.tabGroups.close(tabs, true);
      } catch (e) {
        this.log.warn(`review: cannot close the diff: ${String(e)}`);
      }
    }
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'agentLsp.reviewing', this.pending.size > 0);
  }
}
