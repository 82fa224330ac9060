// Whether an editor's diagnostics for a file mean anything (pure: no vscode import).

/**
 * A file that is not open and has no diagnostics is one no extension has looked at:
 * answer null so the agent says nothing, rather than "no new problems".
 */
export async function answerFor<T, D>(open: boolean, diags: readonly T[], convert: (d: T[]) => Promise<D[]>): Promise<{ diagnostics: D[] | null }> {
  if (!open && diags.length === 0) return { diagnostics: null };
  return { diagnostics: await convert([...diags]) };
}
