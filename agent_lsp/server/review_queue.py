"""The inline review: an edit waits as diagnostics until the person accepts or rejects it.

For clients that cannot show a WorkspaceEdit before applying it (no
`changeAnnotationSupport`: Helix, Neovim < 0.10 or 0.10 stock, stock eglot) a
`needsConfirmation` edit would be applied blind or asked about blind. So the server
does not send it yet: it publishes the pending change as Information diagnostics on
the changed ranges (source `agent-lsp`, the proposed text in the message), offers
"Accept agent edit" / "Reject agent edit" as code actions there (and the commands
agentLsp.acceptEdit / agentLsp.rejectEdit for key maps), and only after Accept sends
the edit, without needsConfirmation. Everything here uses plain LSP.

Edits are reviewed one at a time, in order: a second edit waits in the queue, unseen,
until the first is decided. The diagnostics go away on a decision, a cancel (the tool
call waiting here is cancelled) or a new task.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from ..agent.host import FileChange

log = logging.getLogger("agent_lsp.server")

SOURCE = "agent-lsp"
CODE = "pending-edit"
ACCEPT_TITLE = "Accept agent edit"
REJECT_TITLE = "Reject agent edit"
MESSAGE_CHARS = 2000
SHOW_DOCUMENT_TIMEOUT = 5.0
ACCEPTED, APPLIED, REJECTED = "accepted", "applied", "rejected"


@dataclass
class PendingEdit:
    """One decision: an agent edit of one document, or an undo over several (`more`)."""

    uri: str
    change: FileChange
    edits: list[tuple[types.Range, str]]
    decision: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    more: list[tuple[str, FileChange, list[tuple[types.Range, str]]]] = field(default_factory=list)
    published: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    # Accept carries the edit itself (reach.accept_carries_edit); True once the client applied it
    carries_edit: bool = False
    applied: bool = False

    def documents(self) -> list[tuple[str, FileChange, list[tuple[types.Range, str]]]]:
        return [(self.uri, self.change, self.edits), *self.more]


def _message(change: FileChange, rng: types.Range, new_text: str) -> str:
    head = f"agent edit ({change.tool} {change.display_path})"
    if not new_text:
        body = "delete this text"
    else:
        shown = new_text if len(new_text) <= MESSAGE_CHARS else new_text[:MESSAGE_CHARS] + "…"
        verb = "insert" if rng.start == rng.end else "replace with"
        body = f"{verb}:\n{shown.rstrip(chr(10))}"
    return f"{head}: {body}\n[{ACCEPT_TITLE} / {REJECT_TITLE}: code actions]"


def pending_diagnostics(change: FileChange, edits: list[tuple[types.Range, str]]) -> list[types.Diagnostic]:
    return [
        types.Diagnostic(
            range=rng,
            message=_message(change, rng, text),
            severity=types.DiagnosticSeverity.Information,
            source=SOURCE,
            code=CODE,
            data={"agentLsp": "pendingEdit"},
        )
        for rng, text in edits
    ]


def is_pending_diagnostic(diag: Any) -> bool:
    """Our own review diagnostics, which clients send back in code-action contexts."""
    return getattr(diag, "source", None) == SOURCE and str(getattr(diag, "code", "")) == CODE


class ReviewQueue:
    def __init__(self, ls: Any) -> None:
        self.ls = ls
        self.items: list[PendingEdit] = []

    @property
    def head(self) -> PendingEdit | None:
        return self.items[0] if self.items else None

    def pending(self, uri: str | None = None) -> PendingEdit | None:
        """The edit under review (for `uri`, if given): only the head of the queue can be decided."""
        head = self.head
        if head is None or (uri is not None and uri not in {u for u, _c, _e in head.documents()}):
            return None
        return head

    async def decide(self, uri: str, change: FileChange, edits: list[tuple[types.Range, str]],
                     more: list[tuple[str, FileChange, list[tuple[types.Range, str]]]] | None = None) -> bool:
        """Publish the edit (of one document, or `more` too: an undo) for review and wait: True = accepted."""
        return (await self.decide_edit(uri, change, edits, more=more)) != REJECTED

    async def decide_edit(self, uri: str, change: FileChange, edits: list[tuple[types.Range, str]],
                          more: list[tuple[str, FileChange, list[tuple[types.Range, str]]]] | None = None,
                          carries_edit: bool = False) -> str:
        """ACCEPTED (send the edit now), APPLIED (the client applied the Accept action's own
        edit: the document holds the new text already) or REJECTED.

        Cancellable; the diagnostics go with the decision either way.
        """
        item = PendingEdit(uri, change, edits, more=list(more or []), carries_edit=carries_edit and not more)
        self.items.append(item)
        watch = self.ls.spawn(self._watch(item)) if item.carries_edit else None
        try:
            if self.head is item:
                await self._show(item)
            accepted = await item.decision
            return (APPLIED if item.applied else ACCEPTED) if accepted else REJECTED
        finally:
            if watch is not None:
                watch.cancel()
            was_head = self.head is item
            if item in self.items:
                self.items.remove(item)
            self._unpublish(item)
            if was_head and self.head is not None:
                self.ls.spawn(self._show(self.head))

    async def _watch(self, item: PendingEdit) -> None:
        """The client applied the Accept action's edit: its document now holds the edited text."""
        while not item.decision.done():
            doc = self.ls.open_document(item.uri)
            if doc is not None and doc.source == item.change.after:
                item.applied = True
                self.resolve(item, True)
                return
            await self.ls.wait_document_change(item.uri, 1.0)

    def resolve(self, item: PendingEdit, accept: bool) -> None:
        if not item.decision.done():
            item.decision.set_result(accept)

    def clear(self) -> None:
        """A new task: whatever still waits belongs to a finished one and is rejected."""
        for item in list(self.items):
            self.resolve(item, False)

    async def _show(self, item: PendingEdit) -> None:
        if self.ls.open_document(item.uri) is None and self.ls.client_has("window.show_document.support"):
            try:
                await asyncio.wait_for(
                    self.ls.window_show_document_async(types.ShowDocumentParams(uri=item.uri, take_focus=True)),
                    SHOW_DOCUMENT_TIMEOUT,
                )
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a client that cannot open it still gets the diagnostics
                log.info("showDocument failed for %s: %r", item.uri, e)
        if item.decision.done() or item not in self.items:
            return
        for uri, change, edits in item.documents():
            item.published[uri] = pending_diagnostics(change, edits)
            self._publish(uri, item.published[uri])
        item.diagnostics = item.published.get(item.uri, [])
        names = ", ".join(change.display_path for _u, change, _e in item.documents())
        self.ls.log_line(f"agent-lsp: an edit of {names} waits for review: "
                         f"{ACCEPT_TITLE} / {REJECT_TITLE} (code actions, or agentLsp.acceptEdit / agentLsp.rejectEdit)")

    def _unpublish(self, item: PendingEdit) -> None:
        published, item.published, item.diagnostics = item.published, {}, []
        for uri in published:
            self._publish(uri, [])

    def _publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        doc = self.ls.open_document(uri)
        self.ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics,
                                           version=doc.version if doc is not None else None)
        )
