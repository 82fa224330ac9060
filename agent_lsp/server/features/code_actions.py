"""Code actions: "Fix with agent" on every diagnostic, and "Ask agent" on the line or selection.

The answer is built from the request alone — no disk, no model, no waiting on a
running task — so the lightbulb is instant. Neovim >= 0.10 and eglot put only this
server's diagnostics in the context, so a linter's warning never arrives here: the
range action is how a person reaches the agent from any squiggle in those editors.

A document the commands would refuse (not open and not on disk, not a file, outside
the workspace) gets no actions: a "Fix with agent" there could only fail later.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from ...agent.workspace.paths import PathError
from ..app import AgentServer, server
from ..command_args import ACCEPT_EDIT, FIX_DIAGNOSTIC, REJECT_EDIT, RUN_TASK
from ..edits import workspace_edit
from ..review_queue import ACCEPT_TITLE, REJECT_TITLE, is_pending_diagnostic

TITLE_CHARS = 70


def _short(text: str) -> str:
    """A one-line title: the message's first line (ruff adds a "help: ..." line), trimmed."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    text = " ".join(lines[0].split()) if lines else ""
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"


def _known(ls: AgentServer, uri: str) -> bool:
    """Would the commands take this document? (the same checks, minus reading it)"""
    path = to_fs_path(uri) if uri.startswith("file:") else None
    if not path:
        return False
    try:
        ls.tasks.workspace_for(Path(path)).resolve(path)
    except PathError:
        return False
    return ls.open_document(uri) is not None or os.path.isfile(path)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix], resolve_provider=False),
)
def code_actions(ls: AgentServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    actions: list[types.CodeAction] = _review_actions(ls, uri)
    if not _known(ls, uri):
        return actions  # an agent's pending edit may still be reviewed (a new file); nothing else
    for diag in params.context.diagnostics or []:
        if is_pending_diagnostic(diag):  # the agent's own pending edit: no "Fix with agent" for it
            continue
        title = f"Fix with agent: {_short(diag.message)}"
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                command=types.Command(
                    title=title,
                    command=FIX_DIAGNOSTIC,
                    arguments=[{"uri": uri, "diagnostic": ls.protocol._converter.unstructure(diag)}],
                ),
            )
        )
    rng = params.range
    if rng.start.line == rng.end.line or (rng.end.line == rng.start.line + 1 and rng.end.character == 0):
        title = f"Ask agent about line {rng.start.line + 1}"
    else:
        title = f"Ask agent about lines {rng.start.line + 1}-{rng.end.line + 1}"
    actions.append(
        types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            command=types.Command(
                title=title,
                command=RUN_TASK,
                arguments=[{"uri": uri, "range": ls.protocol._converter.unstructure(rng)}],
            ),
        )
    )
    return actions


def _review_actions(ls: AgentServer, uri: str) -> list[types.CodeAction]:
    """Accept / Reject for the edit waiting in this document, first in the menu, anywhere in it."""
    item = ls.review.pending(uri)
    if item is None:
        return []
    actions = [
        types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=item.published.get(uri) or None,
            is_preferred=command == ACCEPT_EDIT or None,
            command=types.Command(title=title, command=command, arguments=[{"uri": uri}]),
        )
        for title, command in ((ACCEPT_TITLE, ACCEPT_EDIT), (REJECT_TITLE, REJECT_EDIT))
    ]
    if item.carries_edit and uri == item.uri:
        doc = ls.open_document(uri)
        if doc is None or doc.source != item.change.before:
            return actions[1:]  # the document changed under the edit: only Reject is left
        # the client applies it as any code action's edit (reach.py): no command, no applyEdit
        actions[0].command = None
        actions[0].edit = workspace_edit(item.change, uri, doc.version, ls.encoding,
                                         needs_confirmation=False, create_file=False, edits=item.edits)
    return actions
