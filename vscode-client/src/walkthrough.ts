// The walkthrough's last step: a sample problem to try "Fix with agent" on. A JSON file
// with a missing comma: VS Code's own JSON validator puts the squiggle on it, so it
// works without any other extension or language.

import * as vscode from 'vscode';

export const SAMPLE = '{\n  "name": "agent-sample",\n  "retries": 3\n  "timeout": 30\n}\n';
const README = 'A sample for the agent-lsp walkthrough: config.json has a squiggle. Put the cursor on it,\n' +
  'press Ctrl+. (Cmd+. on macOS) and pick "Fix with agent".\n';

/** Write agent-sample/config.json into the first workspace folder (or, with none open,
 * into the extension's storage, opened as the folder) and show it. */
export async function openSample(context: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  const base = folder ? vscode.Uri.joinPath(folder.uri, 'agent-sample') : vscode.Uri.joinPath(context.globalStorageUri, 'agent-sample');
  const file = vscode.Uri.joinPath(base, 'config.json');
  const fs = vscode.workspace.fs;
  try {
    await fs.createDirectory(base);
    let exists = true;
    try {
      await fs.stat(file);
    } catch {
      exists = false;
    }
    if (!exists) await fs.writeFile(file, new TextEncoder().encode(SAMPLE));
    await fs.writeFile(vscode.Uri.joinPath(base, 'README.md'), new TextEncoder().encode(README));
  } catch (e) {
    void vscode.window.showErrorMessage(`Agent: cannot write the sample: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  if (!folder) {
    // The agent works inside workspace folders: open the sample's folder as one.
    await vscode.commands.executeCommand('vscode.openFolder', base, { forceReuseWindow: true });
    return;
  }
  const doc = await vscode.workspace.openTextDocument(file);
  const editor = await vscode.window.showTextDocument(doc);
  const at = new vscode.Position(3, 3); // on "timeout", where the JSON validator reports the missing comma
  editor.selection = new vscode.Selection(at, at);
  void vscode.window.showInformationMessage('Agent: the squiggle is on line 4. Press Ctrl+. there and pick "Fix with agent".');
}
