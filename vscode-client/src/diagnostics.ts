// Which diagnostic "Agent: Fix This" means (pure: plain ranges, no vscode import).

export interface Pos {
  line: number;
  character: number;
}
export interface DiagLike {
  range: { start: Pos; end: Pos };
  /** 0 error, 1 warning, 2 information, 3 hint (vscode.DiagnosticSeverity). */
  severity: number;
  message: string;
}

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

function contains(r: { start: Pos; end: Pos }, p: Pos): boolean {
  return !before(p, r.start) && !before(r.end, p);
}

function size(r: { start: Pos; end: Pos }): number {
  return (r.end.line - r.start.line) * 100_000 + (r.end.character - r.start.character);
}

/**
 * The diagnostics under the cursor, most relevant first: those whose range contains
 * the position; if none, those on the cursor's line. Errors before warnings, then the
 * tightest range.
 */
export function diagnosticsAt<T extends DiagLike>(diags: readonly T[], pos: Pos): T[] {
  let hits = diags.filter((d) => contains(d.range, pos));
  if (!hits.length) hits = diags.filter((d) => d.range.start.line <= pos.line && pos.line <= d.range.end.line);
  return [...hits].sort((a, b) => a.severity - b.severity || size(a.range) - size(b.range));
}
