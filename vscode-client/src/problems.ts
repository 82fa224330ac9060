// `agentLsp/diagnostics`: before and after each edit the server asks what VS Code shows
// for a file (every extension's diagnostics: Pylance, ESLint, tsc, ...), so the agent
// learns what its edit broke. See docs/protocol.md.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { answerFor } from './problemsAnswer';

export const DIAGNOSTICS = 'agentLsp/diagnostics';

/** The answer for `params.uri`: its diagnostics as LSP Diagnostics, or null when VS Code can't tell. */
export async function problemsFor(client: LanguageClient, params: { uri?: unknown }): Promise<{ diagnostics: unknown[] | null }> {
  if (typeof params?.uri !== 'string') return { diagnostics: null };
  const uri = client.protocol2CodeConverter.asUri(params.uri);
  const open = vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
  return answerFor(open, vscode.languages.getDiagnostics(uri), (diags) => client.code2ProtocolConverter.asDiagnostics(diags));
}
