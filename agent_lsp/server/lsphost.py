"""The editor as the agent's Host: buffers are the truth, edits are previews, commands are questions.

Reads of an open document return the editor's text, unsaved changes included.
Edits travel as versioned `workspace/applyEdit`s, and the answer is checked against
what the editor really did, because editors differ: eglot answers a "no" with an
error, Neovim 0.12 says `applied: true` after a decline, Neovim 0.7 applies without
asking. So an edit counts as accepted only when the open document's text really
became the new text (didChange), and an accepted edit is on disk before the next tool
runs so the agent's own commands (tests) see it.

Who puts it on disk matters. A file written behind an open buffer leaves the editor
out of step: Neovim keeps the buffer modified with a stale timestamp (`:w` warns),
Emacs asks "changed since visited" on save. So a client that answers
`agentLsp/saveDocument` is asked to save its own buffer (its timestamp, modified flag
and version stay in step, and eglot flushes its pending didChange with the save);
only when it cannot does the server write the file itself.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path, to_fs_path

from ..agent.facehost import Choice, FaceHost, Question, read_current, stale_reason
from ..agent.host import CannotAsk, EditOutcome, EditStatus, Event, FileChange
from ..agent.workspace.textio import read_disk_text, write_text_atomic
from ..jsonish import jsonable, plain
from . import clients, reach, save_by_rename
from .app import AgentServer
from .edits import minimal_edits, workspace_edit
from .review_queue import APPLIED, REJECTED

log = logging.getLogger("agent_lsp.server")

STREAM_NOTIFICATION = "agentLsp/event"
ASK_REQUEST = "agentLsp/askUser"
SAVE_REQUEST = "agentLsp/saveDocument"
DIAGNOSTICS_REQUEST = "agentLsp/diagnostics"
SAVE_TIMEOUT = 10.0  # seconds for the editor to answer a save request before the server writes itself


class LspHost(FaceHost):
    def __init__(self, ls: AgentServer, progress_token: str | None = None) -> None:
        self.ls = ls
        self.progress_token = progress_token
        self.stream = bool(ls.experimental("stream"))
        self.can_ask = bool(ls.experimental("askUser"))
        self.can_save = bool(ls.experimental("saveDocument"))
        self.can_diagnose = bool(ls.experimental("diagnostics"))
        self.tokens = ""  # the task's token count so far, as the last `usage` event said it
        self.last_report = ""

    def edited_since(self, since: float) -> set[Path]:
        """Files the person saved, or holds unsaved edits of, that the editor reported since `since`.

        A didChange alone can be the editor reloading a file a command rewrote (its buffer then
        equals the disk): only a save, or a buffer that differs from the disk, is the person's.
        """
        out: set[Path] = set()
        for uri, (when, saved) in self.ls.person_edits.items():
            if when < since:
                continue
            path = Path(to_fs_path(uri) or "")
            if not path.is_absolute():
                continue
            doc = self.ls.open_document(uri)
            try:
                disk = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                disk = None
            if saved or (doc is not None and doc.source != disk):
                out.add(path.resolve())
        return out

    # ------------------------------------------------------------ reading

    async def read_text(self, path: Path) -> str | None:
        doc = self.ls.open_document(from_fs_path(str(path)) or "")
        return doc.source if doc is not None else None

    # ------------------------------------------------------------ editing

    async def _fresh(self, change: FileChange, uri: str):
        """(open document or None, its version) when `change` still fits what is there; else a STALE outcome."""
        doc = self.ls.open_document(uri)
        if doc is not None:
            stale = stale_reason(change, doc.source, "open document")
            if stale:
                return EditOutcome(EditStatus.STALE, stale)
            return doc, doc.version
        stale = await asyncio.to_thread(_disk_stale, change)
        if stale:
            return EditOutcome(EditStatus.STALE, stale)
        return None, None

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        uri = from_fs_path(str(change.path)) or ""
        fresh = await self._fresh(change, uri)
        if isinstance(fresh, EditOutcome):
            return fresh
        doc, version = fresh
        opts = self.ls.config.options
        needs_confirmation = not self.ls.config.settings.auto_approve
        may_send = reach.applies_edits(self.ls)
        if not may_send and doc is None and not needs_confirmation:
            return await self._write_itself(change, confirmed=False)  # approved up front, no buffer to change
        edits = None
        if (needs_confirmation and (self.ls.inline_review() or not may_send)) or (not may_send and doc is not None):
            # No preview in this client (or no applyEdit at all): the edit waits as diagnostics
            # until Accept / Reject; for some clients Accept carries the edit itself (reach.py).
            edits = await asyncio.to_thread(minimal_edits, change, self.ls.encoding)
            carries = reach.accept_carries_edit(self.ls) and doc is not None
            decision = await self.ls.review.decide_edit(uri, change, edits, carries_edit=carries)
            if decision == REJECTED:
                return EditOutcome(EditStatus.REJECTED, "rejected in the inline review")
            if decision == APPLIED:  # the client applied the action's edit: its buffer holds the new text
                return await self._on_disk(uri, change, confirmed=True)
            if not may_send:  # accepted by command, for a file the editor does not hold: the server writes it
                return await self._write_itself(change, confirmed=False)
            fresh = await self._fresh(change, uri)  # the person may have typed, or opened it, meanwhile
            if isinstance(fresh, EditOutcome):
                return fresh
            doc, version = fresh
            needs_confirmation = False  # accepted already: applying it must not ask again
            # (the document still holds change.before, checked just above: the same edits apply)
        edit = await asyncio.to_thread(  # a big rewrite's diff must not hold up the editor's requests
            workspace_edit,
            change,
            uri,
            version,
            self.ls.encoding,
            needs_confirmation=needs_confirmation,
            create_file=change.is_new_file and self._client_creates_files(),
            edits=edits,
        )
        label = f"agent: {change.tool} {change.display_path}"
        try:
            result = await reach.answer(
                self.ls, self.ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=label)))
        except reach.NoAnswer:
            return EditOutcome(EditStatus.REJECTED, reach.unanswered(
                self.ls, f"the edit of {change.display_path}", "the edit was not made"))
        except JsonRpcException as e:  # eglot: -32603 "User cancelled server edit"
            return EditOutcome(EditStatus.REJECTED, _error_text(e))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a broken client answer is a refusal, not a crash
            return EditOutcome(EditStatus.REJECTED, f"the editor's answer could not be read: {e}")
        if not getattr(result, "applied", False):
            reason = getattr(result, "failure_reason", None) or ""
            doc_now = self.ls.open_document(uri)
            if doc is not None and doc_now is not None and doc_now.version != version:
                return EditOutcome(EditStatus.STALE, reason or "the document changed while the edit was proposed")
            return EditOutcome(EditStatus.REJECTED, reason)
        confirmed = doc is not None or self.ls.open_document(uri) is not None
        if confirmed:
            if not await self._document_became(uri, change.after, opts.edit_confirm_timeout):
                current = self.ls.open_document(uri)
                if current is not None and current.source == change.before:
                    # Neovim 0.12 answers applied: true after a decline: the buffer is the truth.
                    return EditOutcome(EditStatus.REJECTED, "the editor reported success but the document did not change")
                return EditOutcome(EditStatus.STALE, "the document does not hold the edited text")
        return await self._on_disk(uri, change, confirmed)

    async def _on_disk(self, uri: str, change: FileChange, confirmed: bool) -> EditOutcome:
        """The edit is accepted: the editor saves it (when it can), else the server writes it."""
        if confirmed and save_by_rename.wanted(self.ls):  # coc.nvim: its own write of its buffer
            if await save_by_rename.save(self.ls, change.path, uri, change.after):
                return EditOutcome(EditStatus.ACCEPTED)
        if self.can_save:
            outcome = await self._editor_save(uri, change, confirmed)
            if outcome is not None:
                return outcome
        return await self._write_itself(change, confirmed)

    async def _write_itself(self, change: FileChange, confirmed: bool) -> EditOutcome:
        try:
            wrote = await asyncio.to_thread(_sync_disk, change.path, change.after)
        except OSError as e:
            return EditOutcome(EditStatus.FAILED, f"accepted in the editor but not written to disk: {e}")
        if wrote and confirmed:
            clients.wrote_behind_buffer(self.ls, change.path)
        return EditOutcome(EditStatus.ACCEPTED)

    async def _editor_save(self, uri: str, change: FileChange, confirmed: bool) -> EditOutcome | None:
        """Ask the editor to save its buffer of `uri`; None when the server must write the disk itself.

        After a save the disk holds the editor's buffer, the buffer's truth: the edited
        text (accepted), or still the old text (Neovim 0.12 said `applied: true` after a
        decline on a file that was not open: rejected).
        """
        try:
            # shielded: a late answer must find its request still pending (pygls fails on a cancelled one)
            result = await asyncio.wait_for(
                asyncio.shield(self.ls.protocol.send_request_async(SAVE_REQUEST, {"uri": uri})), SAVE_TIMEOUT
            )
        except asyncio.CancelledError:
            raise
        except Exception as e:  # no answer, an error, a timeout: the server writes
            log.info("saveDocument failed for %s: %r", uri, e)
            return None
        saved = getattr(result, "saved", None)
        if saved is None and isinstance(result, dict):
            saved = result.get("saved")
        if saved is not True:
            return None
        disk = await asyncio.to_thread(_read_or_none, change.path)
        doc = self.ls.open_document(uri)
        if _same_text(disk, change.after) or (doc is not None and _same_text(disk, doc.source)):
            return EditOutcome(EditStatus.ACCEPTED)
        if not confirmed and change.before is not None and _same_text(disk, change.before):
            return EditOutcome(EditStatus.REJECTED, "the editor reported success but its buffer does not hold the edit")
        log.warning("the editor saved %s but the disk does not hold the edited text; writing it", change.path)
        return None

    def _client_creates_files(self) -> bool:
        ops = getattr(
            getattr(getattr(self.ls.client_capabilities, "workspace", None), "workspace_edit", None),
            "resource_operations",
            None,
        ) or []
        return any(getattr(op, "value", op) == "create" for op in ops)

    async def _document_became(self, uri: str, text: str, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            doc = self.ls.open_document(uri)
            if doc is not None and doc.source == text:
                return True
            left = deadline - loop.time()
            if left <= 0:
                return False
            await self.ls.wait_document_change(uri, left)

    # ------------------------------------------------------------ problems

    async def diagnostics(self, path: Path) -> list[dict[str, Any]] | None:
        """Every problem the editor shows for `path` (all its servers and linters), via agentLsp/diagnostics.

        The caller bounds the wait (diagnosticsTimeout); the editor answers whenever it
        can and is never kept waiting on us.
        """
        if not self.can_diagnose:
            return None
        # shielded: a late answer must find its request still pending (pygls fails on a cancelled one)
        request = self.ls.protocol.send_request_async(DIAGNOSTICS_REQUEST, {"uri": from_fs_path(str(path))})
        try:
            result = plain(await asyncio.shield(request))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an error answer: this editor can't tell
            log.info("agentLsp/diagnostics failed: %r", e)
            return None
        items = result.get("diagnostics") if isinstance(result, dict) else None
        return [d for d in items if isinstance(d, dict)] if isinstance(items, list) else None

    # ------------------------------------------------------------ questions

    async def choose(self, question: Question) -> Choice | None:
        """A Warning `window/showMessageRequest` with one button per choice: the one picked, or None
        (dismissed, or a client that failed to ask: never a yes). CannotAsk when this client
        cannot show it, or never answers (reach.py)."""
        if not reach.shows_questions(self.ls):
            raise CannotAsk(reach.cannot_show(self.ls, question.text))
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=question.text,
            actions=[types.MessageActionItem(title=c.label) for c in question.choices],
        )
        try:
            answer = await reach.answer(self.ls, self.ls.window_show_message_request_async(params))
        except reach.NoAnswer:
            raise CannotAsk(reach.unanswered(self.ls, "the question", "that step was not run")) from None
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.info("showMessageRequest (%s) failed: %s", question.kind, e)
            return None
        title = getattr(answer, "title", None)
        return next((c for c in question.choices if c.label == title), None)

    async def ask_user(self, question: str) -> str | None:
        if not self.can_ask:
            return None
        try:
            result = await reach.answer(self.ls, self.ls.protocol.send_request_async(ASK_REQUEST, {"question": question}))
        except reach.NoAnswer:
            reach.unanswered(self.ls, "the agent's question", "the agent decides itself")
            return None
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.info("askUser failed: %s", e)
            return None
        answer = getattr(result, "answer", None)
        if answer is None and isinstance(result, dict):
            answer = result.get("answer")
        return answer if isinstance(answer, str) else ""

    # ------------------------------------------------------------ watching

    def emit(self, event: Event) -> None:
        if self.stream:
            self.ls.protocol.notify(STREAM_NOTIFICATION, {"kind": event.kind, "text": event.text, "data": jsonable(event.data)})
        if event.kind == "tool":
            self.ls.log_line(event.text)
            self._report(event.text)
        elif event.kind in ("status", "error"):
            self.ls.log_line(f"[{event.kind}] {event.text}")
            self._report(event.text)
        elif event.kind == "todo":
            todos = event.data.get("todos", [])
            done = sum(t["status"] == "completed" for t in todos)
            self._report(f"plan {done}/{len(todos)} done")
        elif event.kind == "usage":
            self.tokens = event.text
            self._report(self.last_report or "thinking")

    def _report(self, message: str) -> None:
        """A progress line, with the task's tokens so far after it (`… · tokens: 1,200 prompt + 80 completion`)."""
        if self.progress_token is None:
            return
        self.last_report = message[:150]
        shown = f"{self.last_report} · {self.tokens}" if self.tokens else self.last_report
        self.ls.work_done_progress.report(
            self.progress_token, types.WorkDoneProgressReport(message=shown[:250], cancellable=True)
        )


def _disk_stale(change: FileChange) -> str | None:
    current, unreadable = read_current(change.path, read_disk_text)
    return unreadable or stale_reason(change, current, "file on disk")


def _sync_disk(path: Path, text: str) -> bool:
    """Make the disk hold `text` (the editor may have written it already); True when we wrote."""
    try:
        if read_disk_text(path) == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    write_text_atomic(path, text)
    return True


def _read_or_none(path: Path) -> str | None:
    try:
        return read_disk_text(path)
    except (OSError, UnicodeDecodeError):
        return None


def _same_text(disk: str | None, text: str) -> bool:
    """The disk holds `text`, up to what an editor's save normalises (CRLF, the final newline)."""
    if disk is None:
        return False
    if disk == text:
        return True

    def norm(s: str) -> str:
        return s.replace("\r\n", "\n").rstrip("\n")

    return norm(disk) == norm(text)


def _error_text(e: JsonRpcException) -> str:
    msg = getattr(e, "message", None) or str(e)
    return f"the editor declined: {msg}"

