// LSP WorkspaceEdits as the review sees them (pure: no vscode import).
//
// The server sends every agent edit as one `workspace/applyEdit` whose
// `documentChanges` hold an optional CreateFile and one TextDocumentEdit of
// AnnotatedTextEdits (docs/protocol.md). The review needs, per file: the text
// before, the text after, and whether the person must confirm. Positions are
// UTF-16 code units, the only encoding vscode-languageclient negotiates.

export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}
export interface TextEdit {
  range: Range;
  newText: string;
  annotationId?: string;
}
export interface ChangeAnnotation {
  label: string;
  needsConfirmation?: boolean;
  description?: string;
}
export interface TextDocumentEdit {
  textDocument: { uri: string; version: number | null };
  edits: TextEdit[];
}
export interface CreateFile {
  kind: 'create';
  uri: string;
  options?: { overwrite?: boolean; ignoreIfExists?: boolean };
  annotationId?: string;
}
export interface RenameFile {
  kind: 'rename';
  oldUri: string;
  newUri: string;
  annotationId?: string;
}
export interface DeleteFile {
  kind: 'delete';
  uri: string;
  annotationId?: string;
}
export type DocumentChange = TextDocumentEdit | CreateFile | RenameFile | DeleteFile;
export interface WorkspaceEdit {
  changes?: Record<string, TextEdit[]>;
  documentChanges?: DocumentChange[];
  changeAnnotations?: Record<string, ChangeAnnotation>;
}

/** One file of an edit, as the review shows it. */
export interface FileChange {
  uri: string;
  /** The version the server made the edit for (null: the file was not open). */
  version: number | null;
  /** The file does not exist yet (a CreateFile precedes its edits). */
  create: boolean;
  createOptions?: { overwrite?: boolean; ignoreIfExists?: boolean };
  edits: TextEdit[];
}

export interface ReviewPlan {
  files: FileChange[];
  /** Some part of the edit carries an annotation with needsConfirmation. */
  needsConfirmation: boolean;
  /** The annotation labels (e.g. "agent: edit_file calc.py"), in order, without repeats. */
  labels: string[];
  /** Set when the edit holds something the diff review cannot show (rename, delete). */
  unsupported?: string;
}

function isTextDocumentEdit(c: DocumentChange): c is TextDocumentEdit {
  return (c as TextDocumentEdit).textDocument !== undefined && Array.isArray((c as TextDocumentEdit).edits);
}

/** Sort a WorkspaceEdit into per-file changes, or say why the diff review cannot show it. */
export function planReview(edit: WorkspaceEdit): ReviewPlan {
  const annotations = edit.changeAnnotations ?? {};
  const used = new Set<string>();
  const files = new Map<string, FileChange>();
  let unsupported: string | undefined;
  const fileFor = (uri: string, version: number | null): FileChange => {
    let f = files.get(uri);
    if (!f) {
      f = { uri, version, create: false, edits: [] };
      files.set(uri, f);
    }
    return f;
  };
  for (const change of edit.documentChanges ?? []) {
    if (isTextDocumentEdit(change)) {
      const f = fileFor(change.textDocument.uri, change.textDocument.version ?? null);
      for (const e of change.edits) {
        f.edits.push(e);
        if (e.annotationId) used.add(e.annotationId);
      }
    } else if (change.kind === 'create') {
      const f = fileFor(change.uri, null);
      f.create = true;
      f.createOptions = change.options;
      if (change.annotationId) used.add(change.annotationId);
    } else {
      unsupported = `a ${change.kind} operation`;
      if (change.annotationId) used.add(change.annotationId);
    }
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    const f = fileFor(uri, null);
    for (const e of edits) {
      f.edits.push(e);
      if (e.annotationId) used.add(e.annotationId);
    }
  }
  const labels: string[] = [];
  let needsConfirmation = false;
  for (const id of used) {
    const a = annotations[id];
    if (!a) continue;
    if (a.needsConfirmation) needsConfirmation = true;
    if (a.label && !labels.includes(a.label)) labels.push(a.label);
  }
  return { files: [...files.values()], needsConfirmation, labels, unsupported };
}

/** Offsets where each line starts; lines end at \n, \r\n or \r (as in LSP). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) starts.push(i + 1);
    else if (ch === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/** The UTF-16 offset of an LSP position; past-the-end lines and characters are clamped, as VS Code does. */
export function offsetAt(text: string, starts: number[], pos: Position): number {
  if (pos.line >= starts.length) return text.length;
  const lineStart = starts[Math.max(0, pos.line)];
  let lineEnd = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  // the line break is not part of the line's characters
  while (lineEnd > lineStart && (text[lineEnd - 1] === '\n' || text[lineEnd - 1] === '\r')) lineEnd--;
  return Math.min(lineStart + Math.max(0, pos.character), lineEnd);
}

function comparePos(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/** Apply LSP text edits (all relative to `text`, non-overlapping) and return the new text. */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const starts = lineStarts(text);
  const ordered = edits
    .map((e, i) => ({ e, i, a: offsetAt(text, starts, e.range.start), b: offsetAt(text, starts, e.range.end) }))
    .sort((x, y) => comparePos(x.e.range.start, y.e.range.start) || x.i - y.i);
  let out = '';
  let at = 0;
  for (const { e, a, b } of ordered) {
    if (b < a) throw new Error('an edit ends before it starts');
    if (a < at) throw new Error('edits overlap');
    out += text.slice(at, a) + e.newText;
    at = b;
  }
  return out + text.slice(at);
}

/** Lines added and removed between two texts (a small LCS diff over lines; for the summary only). */
export function lineStats(before: string, after: string): { added: number; removed: number } {
  const a = before === '' ? [] : before.split(/\r\n|\r|\n/);
  const b = after === '' ? [] : after.split(/\r\n|\r|\n/);
  let lo = 0;
  while (lo < a.length && lo < b.length && a[lo] === b[lo]) lo++;
  let ea = a.length;
  let eb = b.length;
  while (ea > lo && eb > lo && a[ea - 1] === b[eb - 1]) {
    ea--;
    eb--;
  }
  const x = a.slice(lo, ea);
  const y = b.slice(lo, eb);
  if (x.length * y.length > 4_000_000) return { added: y.length, removed: x.length };
  let prev = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    const row = new Array<number>(y.length + 1).fill(0);
    for (let j = 1; j <= y.length; j++) {
      row[j] = x[i - 1] === y[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], row[j - 1]);
    }
    prev = row;
  }
  const common = prev[y.length];
  return { added: y.length - common, removed: x.length - common };
}

/** The last path segment of a file URI, decoded: "calc.py". */
export function baseName(uri: string): string {
  const path = uri.replace(/[?#].*$/, '');
  const name = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** "edit calc.py (+1 −1)" / "create notes.md (+12)" / "edit a.py, b.py (+3 −2)". */
export function describeChange(files: { uri: string; create: boolean; before: string; after: string }[]): string {
  let added = 0;
  let removed = 0;
  for (const f of files) {
    const s = lineStats(f.before, f.after);
    added += s.added;
    removed += s.removed;
  }
  const verb = files.length > 0 && files.every((f) => f.create) ? 'create' : 'edit';
  const names = files.map((f) => baseName(f.uri));
  const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  const stats = [added ? `+${added}` : '', removed ? `−${removed}` : ''].filter(Boolean).join(' ');
  return `${verb} ${shown}${stats ? ` (${stats})` : ''}`;
}
