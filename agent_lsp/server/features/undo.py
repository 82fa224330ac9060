"""agentLsp.undoTask: take the session's last finished task back as one reviewed edit.

The undo is one `workspace/applyEdit` with a versioned TextDocumentEdit per open
document and one change annotation per file, all `needsConfirmation`: it lands on the
editor's undo stack and the person reviews it like any edit the agent proposes. A
file the task created is a DeleteFile (when the client can delete; otherwise its text
is emptied in the preview and the server deletes it), a file it deleted comes back
through CreateFile. Files not open are written to disk by the server once the edit is
accepted, as accepted edits are (lsphost.py).

A file that changed since the task last touched it is not part of the edit at all
(agent/state/checkpoints.py decides), and the answer names it. A declined preview changes
nothing and leaves the task undoable; a second undo says there is nothing to undo.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

from ...agent.state import checkpoints
from ...agent.host import FileChange
from .. import command_args as c
from ..app import AgentServer, server
from ..edits import minimal_edits
from ...jsonish import plain
from ..lsphost import LspHost
from ..tasks import TaskError

LABEL = "agent: undo the last task"


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _can(ls: AgentServer, op: str) -> bool:
    ops = getattr(getattr(getattr(ls.client_capabilities, "workspace", None), "workspace_edit", None),
                  "resource_operations", None) or []
    return any(getattr(o, "value", o) == op for o in ops)


def _current(ls: AgentServer):
    def read(path: Path) -> bytes | None:
        doc = ls.open_document(from_fs_path(str(path)) or "")
        return doc.source.encode("utf-8") if doc is not None else checkpoints.read_disk(path)
    return read


Review = list[tuple[str, FileChange, list[tuple[types.Range, str]]]]


def _build(ls: AgentServer, restores: list[checkpoints.Restore], display) -> tuple[types.WorkspaceEdit, dict[str, str], Review]:
    """The one WorkspaceEdit, uri -> the text each open document must end up holding, and
    what the inline review shows of it (uri, change, edits) for clients without a preview."""
    changes: list[Any] = []
    annotations: dict[str, types.ChangeAnnotation] = {}
    expect_open: dict[str, str] = {}
    review: Review = []
    can_delete, can_create = _can(ls, "delete"), _can(ls, "create")
    for i, r in enumerate(restores):
        uri = from_fs_path(str(r.path)) or ""
        shown = display(r.path)
        current, target = _text(r.current), _text(r.target)
        if (r.current is not None and current is None) or (r.target is not None and target is None):
            continue  # binary: restored by the server once the edit is accepted
        if r.current is None and not can_create:
            continue  # the server writes it back once the edit is accepted
        ann_id = f"undo-{i}"
        verb = "delete" if r.target is None else ("re-create" if r.current is None else "restore")
        annotations[ann_id] = types.ChangeAnnotation(
            label=f"agent: undo {shown}", needs_confirmation=True,
            description=f"Undo the agent's last task: {verb} {shown}")
        doc = ls.open_document(uri)
        before, after = current or "", target or ""
        edits = minimal_edits(FileChange("undo", r.path, shown, before, after), ls.encoding)
        review.append((uri, FileChange("undo", r.path, shown, before, after), edits))
        if r.target is None and can_delete:
            changes.append(types.DeleteFile(uri=uri, options=types.DeleteFileOptions(ignore_if_not_exists=True),
                                            annotation_id=ann_id))
            continue
        if r.current is None:
            changes.append(types.CreateFile(uri=uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True),
                                            annotation_id=ann_id))
        changes.append(types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=doc.version if doc else None),
            edits=[types.AnnotatedTextEdit(range=rng, new_text=t, annotation_id=ann_id) for rng, t in edits]))
        if doc is not None:
            expect_open[uri] = after
    return types.WorkspaceEdit(document_changes=changes, change_annotations=annotations), expect_open, review


@server.command(c.UNDO_TASK)
async def undo_task(ls: AgentServer, *args: Any) -> dict[str, Any]:
    if any(plain(a) not in (None, {}, []) for a in args):
        raise c.bad(f"{c.UNDO_TASK} takes no arguments: it undoes the last finished task of this session")
    if ls.tasks.busy:
        raise TaskError("the agent is working on a task; cancel it first (agentLsp.cancel), then undo")
    session = ls.tasks.session
    changes = session.ctx.changes if session is not None else None
    display = session.workspace.display if session is not None else str
    p = checkpoints.plan(changes, _current(ls)) if changes is not None else checkpoints.plan(None, _current(ls))
    if p.nothing:
        if changes is None:
            p.nothing = "nothing to undo: no task has run in this session"
        ls.log_line(f"agent-lsp: {p.nothing}")
        ls.show(f"agent: {p.nothing}")
        return {"undone": False, "message": p.nothing, "restored": [], "skipped": []}
    assert changes is not None
    if p.restores and ls.inline_review():
        # No preview in this client: the undo waits in the inline review, and the command
        # answers now (eglot runs commands synchronously); the outcome arrives as a message.
        ls.spawn(_undo(ls, changes, p, display))
        message = "the undo waits for your review: Accept agent edit / Reject agent edit (code actions)"
        return {"undone": False, "pending": True, "message": message, "restored": [], "skipped": []}
    return await _undo(ls, changes, p, display)


async def _undo(ls: AgentServer, changes: Any, p: Any, display) -> dict[str, Any]:
    """Propose the undo, and once it is accepted put the disk in step and report."""
    restores = p.restores
    if restores:
        edit, expect_open, review = _build(ls, restores, display)
        accepted = await _propose(ls, edit, expect_open, review)
        if not accepted:
            message = "the undo was declined in review; nothing changed (agentLsp.undoTask can propose it again)"
            ls.show(f"agent: {message}", types.MessageType.Warning)
            return {"undone": False, "message": message, "restored": [], "skipped": []}
    restored, skipped = await asyncio.to_thread(_write_all, restores)
    skipped = list(p.skipped) + skipped
    changes.undone = True
    changes.save()
    text = checkpoints.report(changes, restored, skipped, display)
    ls.log_line(f"agent-lsp: {text}")
    ls.show(f"agent: {text.splitlines()[0]}" + (f" ({len(skipped)} skipped: see the log)" if skipped else ""))
    return {"undone": True, "message": text,
            "restored": [display(x) for x in restored],
            "skipped": [{"path": display(x), "reason": why} for x, why in skipped]}


async def _propose(ls: AgentServer, edit: types.WorkspaceEdit, expect_open: dict[str, str], review: Review) -> bool:
    """Send the one edit; True once the editor accepted it and its open documents hold the old text again."""
    if not edit.document_changes:
        return True  # only files the editor cannot show (binary): nothing to review
    if ls.inline_review() and review:
        uri, change, edits = review[0]
        if not await ls.review.decide(uri, change, edits, more=review[1:]):
            return False
        for annotation in (edit.change_annotations or {}).values():
            annotation.needs_confirmation = False  # accepted in the review: applying must not ask again
    try:
        result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=LABEL))
    except JsonRpcException:  # eglot's "no"
        return False
    except asyncio.CancelledError:
        raise
    except Exception:
        return False
    if not getattr(result, "applied", False):
        return False
    host = LspHost(ls)
    timeout = ls.config.options.edit_confirm_timeout
    became = [await host._document_became(uri, text, timeout) for uri, text in expect_open.items()]
    return all(became)  # Neovim 0.12 says applied after a decline: the buffers are the truth


def _write_all(restores: list[checkpoints.Restore]) -> tuple[list[Path], list[tuple[Path, str]]]:
    restored: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for r in restores:
        try:
            checkpoints.write_disk(r)
            restored.append(r.path)
        except OSError as e:
            skipped.append((r.path, f"could not be written: {e}"))
    return restored, skipped
