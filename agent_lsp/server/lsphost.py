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
from pygls.uris import from_fs_path

from ..agent.context import read_disk_text
from ..agent.fileio import write_text_atomic
from ..agent.host import Approval, ApprovalRequest, EditOutcome, EditStatus, Event, FileChange, Host
from ..agent.permissions import describe, rule_label
from . import clients
from .app import AgentServer
from .edits import minimal_edits, workspace_edit
from .jsonish import jsonable, plain

log = logging.getLogger("agent_lsp.server")

STREAM_NOTIFICATION = "agentLsp/event"
ASK_REQUEST = "agentLsp/askUser"
SAVE_REQUEST = "agentLsp/saveDocument"
DIAGNOSTICS_REQUEST = "agentLsp/diagnostics"
SAVE_TIMEOUT = 10.0  # seconds for the editor to answer a save request before the server writes itself
ALLOW, DENY = "Allow once", "Deny"
TRUST, DONT_TRUST = "Trust", "Don't trust"


class LspHost(Host):
    def __init__(self, ls: AgentServer, progress_token: str | None = None) -> None:
        self.ls = ls
        self.progress_token = progress_token
        self.stream = bool(ls.experimental("stream"))
        self.can_ask = bool(ls.experimental("askUser"))
        self.can_save = bool(ls.experimental("saveDocument"))
        self.can_diagnose = bool(ls.experimental("diagnostics"))
        self.tokens = ""  # the task's token count so far, as the last `usage` event said it
        self.last_report = ""

    # ------------------------------------------------------------ reading

    async def read_text(self, path: Path) -> str | None:
        doc = self.ls.open_document(from_fs_path(str(path)) or "")
        return doc.source if doc is not None else None

    # ------------------------------------------------------------ editing

    async def _fresh(self, change: FileChange, uri: str):
        """(open document or None, its version) when `change` still fits what is there; else a STALE outcome."""
        if change.read is not None and change.before is not None and change.read != change.before:
            # write_file's content was written from what the agent read; proposing it now
            # would quietly undo what the person (or a command) changed since.
            return EditOutcome(EditStatus.STALE, "the file changed since you last read it")
        doc = self.ls.open_document(uri)
        if doc is not None:
            if change.before is None or doc.source != change.before:
                return EditOutcome(EditStatus.STALE, "the open document differs from the text the edit was made for")
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
        edits = None
        if needs_confirmation and self.ls.inline_review():
            # No preview in this client: the edit waits as diagnostics until Accept / Reject.
            edits = await asyncio.to_thread(minimal_edits, change, self.ls.encoding)
            if not await self.ls.review.decide(uri, change, edits):
                return EditOutcome(EditStatus.REJECTED, "rejected in the inline review")
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
            result = await self.ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=label))
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
        if self.can_save:
            outcome = await self._editor_save(uri, change, confirmed)
            if outcome is not None:
                return outcome
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

    async def _choose(self, message: str, titles: list[str], what: str) -> str | None:
        """A Warning `window/showMessageRequest` with these buttons: the title picked, or None
        (dismissed, or a client that failed to ask: never a yes)."""
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=message,
            actions=[types.MessageActionItem(title=t) for t in titles],
        )
        try:
            answer = await self.ls.window_show_message_request_async(params)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.info("showMessageRequest (%s) failed: %s", what, e)
            return None
        return getattr(answer, "title", None)

    async def confirm(self, tool: str, args: dict[str, Any], preview: str) -> bool:
        if tool in ("edit_file", "write_file"):
            return True  # the edit's own preview is where the person says yes or no
        what = "run" if tool == "bash" else f"use {tool}:"
        return await self._choose(f"agent-lsp wants to {what}\n{preview}", [ALLOW, DENY], tool) == ALLOW

    async def approve(self, request: ApprovalRequest) -> Approval:
        """Allow once / Allow `<rule>` for this session / Always allow `<rule>` in this project / Deny."""
        label = rule_label(request.rules)
        titles = {ALLOW: Approval.ONCE}
        if request.rules:
            titles[f"Allow {label} for this session"] = Approval.SESSION
            titles[f"Always allow {label} in this project"] = Approval.ALWAYS
        titles[DENY] = Approval.DENY
        chosen = await self._choose(describe(request), list(titles), request.tool)
        return titles.get(chosen or "", Approval.DENY)

    async def trust_project(self, root: Path, question: str) -> bool:
        return await self._choose(f"agent-lsp: {question}", [TRUST, DONT_TRUST], "trust") == TRUST

    async def ask_user(self, question: str) -> str | None:
        if not self.can_ask:
            return None
        try:
            result = await self.ls.protocol.send_request_async(ASK_REQUEST, {"question": question})
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
    try:
        if change.before is None:
            return "the file was created meanwhile" if change.path.exists() else None
        return None if read_disk_text(change.path) == change.before else "the file on disk changed meanwhile"
    except (OSError, UnicodeDecodeError) as e:
        return f"cannot read the file: {e}"


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

