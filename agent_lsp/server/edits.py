"""Turning an agent's FileChange into the smallest LSP WorkspaceEdit that expresses it.

`edit_file` becomes one edit over exactly the replaced text; `write_file` over an
existing file becomes a line diff, so the editor's preview shows what really changes
and the person's cursor, folds and undo history survive. Positions are counted in
the negotiated encoding: UTF-16 code units by default (an emoji is two), UTF-8 bytes
or code points when the client asked for those.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from lsprotocol import types

from ..agent.workspace import linediff
from ..agent.host import FileChange

_EOL = re.compile(r"\r\n|\r|\n")
_NOT_LSP_BREAK = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # str.splitlines breaks there, LSP doesn't


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts. LSP ends lines at \\n, \\r\\n or \\r."""
    if text.count("\r") == text.count("\r\n"):  # no lone CR: the lines end at each \n (counted in C)
        return list(accumulate(map((1).__add__, map(len, text.split("\n")[:-1])), initial=0))
    return [0, *(m.end() for m in _EOL.finditer(text))]


def units(s: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8.value:
        return len(s.encode("utf-8"))
    if encoding == types.PositionEncodingKind.Utf32.value:
        return len(s)
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)  # UTF-16: astral chars are pairs


class PositionMap:
    """Offsets of one text to LSP positions in a given encoding."""

    def __init__(self, text: str, encoding: str, starts: list[int] | None = None) -> None:
        self.text = text
        self.encoding = encoding
        self._starts = starts

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    def position(self, offset: int) -> types.Position:
        line = bisect_right(self.starts, offset) - 1
        prefix = self.text[self.starts[line] : offset]
        return types.Position(line=line, character=units(prefix, self.encoding))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))


def minimal_edits(change: FileChange, encoding: str) -> list[tuple[types.Range, str]]:
    """(range, new text) pairs against `change.before`, non-overlapping, in document order."""
    before = change.before or ""
    if change.span is not None and change.replacement is not None:
        start, end = change.span
        return [(PositionMap(before, encoding).range(start, end), change.replacement)]
    if not before:
        # To line 1, past the end of the empty document (clamped to its end, as LSP says): an
        # insert at 0:0 would leave Neovim's empty last line after the text (a newline too many).
        whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=1, character=0))
        return [(whole, change.after)]
    old_lines = before.splitlines(keepends=True)
    new_lines = change.after.splitlines(keepends=True)
    offsets = list(accumulate(map(len, old_lines), initial=0))
    starts = None
    if not _NOT_LSP_BREAK.search(before):  # str.splitlines broke lines where LSP does: reuse its offsets
        starts = offsets if before.endswith(("\n", "\r")) else offsets[:-1]
    pm = PositionMap(before, encoding, starts)
    return [
        (pm.range(offsets[i1], offsets[i2]), "".join(new_lines[j1:j2]))
        for tag, i1, i2, j1, j2 in linediff.opcodes(old_lines, new_lines)
        if tag != "equal"
    ]


def workspace_edit(
    change: FileChange,
    uri: str,
    version: int | None,
    encoding: str,
    *,
    needs_confirmation: bool,
    create_file: bool,
    edits: list[tuple[types.Range, str]] | None = None,
) -> types.WorkspaceEdit:
    """One WorkspaceEdit in `documentChanges` form (annotations only survive there).

    `edits`: minimal_edits(change, encoding) when the caller has them already (the inline
    review computed them to show the pending change).
    """
    annotation_id = "agent-lsp"
    verb = "create" if change.is_new_file else ("edit" if change.tool == "edit_file" else "rewrite")
    annotation = types.ChangeAnnotation(
        label=f"agent: {change.tool} {change.display_path}",
        needs_confirmation=needs_confirmation,
        description=f"The agent wants to {verb} {change.display_path}",
    )
    text_edits = [
        types.AnnotatedTextEdit(range=rng, new_text=text, annotation_id=annotation_id)
        for rng, text in (edits if edits is not None else minimal_edits(change, encoding))
    ]
    doc_edit = types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        edits=text_edits,
    )
    changes: list = []
    if change.is_new_file and create_file:
        changes.append(
            types.CreateFile(
                uri=uri,
                options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True),
                annotation_id=annotation_id,
            )
        )
    changes.append(doc_edit)
    return types.WorkspaceEdit(document_changes=changes, change_annotations={annotation_id: annotation})


def warm_converter(converter) -> None:
    """Unstructure a small edit of every shape we send, once, off the event loop: cattrs
    writes and compiles its unstructure functions on first use (~0.1 s), and that
    first use would otherwise be the first applyEdit, on the loop."""
    from pathlib import Path

    for before in (None, "a\n"):
        change = FileChange("write_file", Path("warm.txt"), "warm.txt", before, "b\n")
        edit = workspace_edit(change, "file:///warm.txt", 1, "utf-16", needs_confirmation=True, create_file=True)
        converter.unstructure(types.ApplyWorkspaceEditParams(edit=edit, label="warm"))


def apply_edits(text: str, edits: list[tuple[types.Range, str]], encoding: str) -> str:
    """Apply (range, text) edits to `text` — what a client does; used to check our own output."""
    pm = PositionMap(text, encoding)

    def offset(pos: types.Position) -> int:
        start = pm.starts[pos.line] if pos.line < len(pm.starts) else len(text)
        end = pm.starts[pos.line + 1] if pos.line + 1 < len(pm.starts) else len(text)
        count = 0
        for i in range(start, end):
            if count >= pos.character:
                return i
            count += units(text[i], encoding)
        return end

    out = text
    for rng, new in sorted(edits, key=lambda e: (e[0].start.line, e[0].start.character), reverse=True):
        a, b = offset(rng.start), offset(rng.end)
        out = out[:a] + new + out[b:]
    return out
