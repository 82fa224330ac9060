"""read_file, write_file, edit_file: the tools that see and change one file.

Reads go through the Host first so an editor's unsaved buffer is what the model
reads. Writes never touch the disk themselves: they describe a FileChange and the
Host decides (a terminal asks and writes, an editor shows a preview). `edit_file`
matches text, not line numbers, because models copy a snippet well and count lines
badly; refusing an ambiguous match is what keeps it from editing the wrong place.
"""

from __future__ import annotations

from pathlib import Path

from ..context import ToolContext
from ..workspace.textio import text_lines
from ..diagnostics.watch import apply_watched
from ..host import EditOutcome, EditStatus, FileChange
from ..registry import tool

MAX_READ_LINES = 2000
MAX_READ_CHARS = 18_000


def _protected(ctx: ToolContext, path: str, f: Path) -> str | None:
    """An error for a write into .git/ or .agent-lsp/, unless the person allowed it."""
    folder = ctx.workspace.protected(f)
    if folder is None or ctx.settings.allow_metadata_writes:
        return None
    return (f"error: {path} is inside {folder}/, git's or agent-lsp's own configuration (hooks, config, "
            "rules, settings); the file tools do not change it. Tell the user what to change there, or "
            "they can set allowMetadataWrites: true in their own settings.")


def _missing(path: str, f: Path) -> str | None:
    if f.is_dir():
        return f"error: {path} is a directory; use list_files to see what it holds"
    if not f.exists():
        return f"error: not found: {path}"
    return None


async def _current_text(ctx: ToolContext, path: str, f: Path) -> str:
    """The file's text, or raise ValueError with a model-facing message."""
    try:
        return await ctx.read_text(f)
    except UnicodeDecodeError:
        raise ValueError(f"error: {path} is a binary file; these tools only handle text") from None


@tool(
    "Read a text file. Returns its lines numbered from 1. Long files come in pages: "
    "the end of a page says which start to use for the rest.",
    read_only=True,
    path="file path relative to the workspace root",
    start="first line to return (1-based, default 1)",
    end="last line to return, inclusive (default: end of file)",
)
async def read_file(ctx: ToolContext, path: str, start: int = 1, end: int | None = None) -> str:
    f = ctx.workspace.resolve(path)
    if (err := _missing(path, f)) is not None:
        return err
    text = await _current_text(ctx, path, f)
    ctx.seen[f] = text
    ctx.diagnostics.start_servers_for(f)  # its diagnosticServers start now, before an edit waits for them
    lines = text_lines(text)
    total = len(lines)
    if total == 0:
        return f"({path} is empty)"
    start = max(start, 1)
    last = total if end is None else min(end, total)
    if start > total:
        return f"(empty range: {path} has {total} lines)"
    if last < start:
        return f"(empty range: end {end} is before start {start})"
    out: list[str] = []
    size = 0
    line_no = start
    while line_no <= last:
        row = f"{line_no}: {lines[line_no - 1]}"
        if out and (len(out) >= MAX_READ_LINES or size + len(row) > MAX_READ_CHARS):
            break
        if len(row) > MAX_READ_CHARS:
            row = row[:MAX_READ_CHARS] + f" ...[line cut at {MAX_READ_CHARS} chars]"
        out.append(row)
        size += len(row) + 1
        line_no += 1
    if line_no <= last or last < total:
        rest = total - line_no + 1
        out.append(f"...[{rest} more lines; read them with start={line_no}]")
    return "\n".join(out)


def _edit_result(outcome: EditOutcome, path: str, ok: str) -> str:
    if outcome.status is EditStatus.ACCEPTED:
        return ok
    detail = f" ({outcome.detail})" if outcome.detail else ""
    if outcome.status is EditStatus.REJECTED:
        return f"error: the user rejected this edit in review; {path} is unchanged{detail}"
    if outcome.status is EditStatus.STALE:
        return (
            f"error: {path} changed in the editor since you read it, so the edit was not applied"
            f"{detail}. Read it again and redo the edit against its current text."
        )
    return f"error: could not apply the edit to {path}{detail}"


@tool(
    "Create a file, or overwrite one, with exactly this content. Parent folders are created.",
    gated=True,
    path="file path relative to the workspace root",
    content="the complete new content of the file",
)
async def write_file(ctx: ToolContext, path: str, content: str) -> str:
    f = ctx.workspace.resolve(path)
    if (err := _protected(ctx, path, f)) is not None:
        return err
    if f.is_dir():
        return f"error: {path} is a directory"
    before = await _current_text(ctx, path, f) if f.exists() else None
    change = FileChange(
        tool="write_file", path=f, display_path=ctx.workspace.display(f), before=before, after=content,
        read=ctx.seen.get(f) if before is not None else None,
    )
    outcome, problems = await apply_watched(ctx, change, ctx.host.apply_edit)
    if outcome.status is EditStatus.ACCEPTED:
        ctx.seen[f] = content
        if ctx.changes is not None:
            ctx.changes.record_edit(change)
    n = len(content.encode("utf-8"))
    return _edit_result(outcome, path, _with(f"wrote {n} bytes to {path}", problems))


@tool(
    "Replace an exact piece of text in a file. `old` must occur exactly once: copy it from "
    "read_file output (without the line numbers) with enough context to be unique.",
    gated=True,
    path="file path relative to the workspace root",
    old="exact text to replace, including whitespace, unique in the file",
    new="the text to put in its place",
)
async def edit_file(ctx: ToolContext, path: str, old: str, new: str) -> str:
    f = ctx.workspace.resolve(path)
    if (err := _protected(ctx, path, f) or _missing(path, f)) is not None:
        return err
    if old == "":
        return "error: old must not be empty; use write_file to create or replace a whole file"
    text = await _current_text(ctx, path, f)
    n = text.count(old)
    if n == 0 and "\r\n" in text and "\r\n" not in old:
        # The model writes \n; a CRLF file would never match otherwise.
        old, new = old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
        n = text.count(old)
    if n == 0:
        return f"error: old text not found in {path}; read the file again and copy the text exactly"
    if n > 1:
        return f"error: old text occurs {n} times in {path}; include more context"
    if old == new:
        return "error: old and new are identical; nothing to change"
    i = text.index(old)
    after = text[:i] + new + text[i + len(old) :]
    change = FileChange(
        tool="edit_file",
        path=f,
        display_path=ctx.workspace.display(f),
        before=text,
        after=after,
        span=(i, i + len(old)),
        replacement=new,
    )
    outcome, problems = await apply_watched(ctx, change, ctx.host.apply_edit)
    if outcome.status is EditStatus.ACCEPTED:
        ctx.seen[f] = after
        if ctx.changes is not None:
            ctx.changes.record_edit(change)
    first = text.count("\n", 0, i) + 1
    last = first + new.count("\n")
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    return _edit_result(outcome, path, _with(f"ok: edited {path} ({where} now hold the new text)", problems))


def _with(result: str, problems: str) -> str:
    """The edit's result, then what it broke (agent/diagnostics/; empty when no source answered)."""
    return f"{result}\n{problems}" if problems else result

