"""What this client can be sent, and how long the server waits for its answers.

No client may stall a task. The LSP specification forbids `workspace/applyEdit` to a
client that did not declare it, so such a client's edits are accepted through the code
action's own `edit` (the inline review). lsp-mode declares applyEdit, but sends the
didChange of an edit a server asked for to that server only (ruff beside it would never
hear it), so its Accept carries the edit too: a code action's edit is a normal buffer
change every server hears. A question goes to any client with `window`
capabilities or one the server knows shows questions; a client that declares no `window`
at all is told plainly, in an Error message, that it cannot be asked. And every answer the server waits
for has a bound (`answerTimeout`): after it, the person is told the editor did not
answer, and the step counts as a no.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from lsprotocol import types

from . import clients

# clients known to show window/showMessageRequest whatever they declare (eglot 1.9 declares no `window`)
ASKERS = (clients.EGLOT, clients.NEOVIM, clients.VSCODE, clients.HELIX, clients.LSP_MODE)


class NoAnswer(Exception):
    """The editor did not answer within answerTimeout."""


def kind(ls: Any) -> str:
    return getattr(getattr(ls, "editor_client", None), "kind", "")


def applies_edits(ls: Any) -> bool:
    """May the server send workspace/applyEdit? (the client declared workspace.applyEdit)"""
    return ls.client_has("workspace.apply_edit")


def accept_carries_edit(ls: Any) -> bool:
    """Does the inline review's Accept action carry the edit itself, instead of a command?"""
    return not applies_edits(ls) or kind(ls) == clients.LSP_MODE


def shows_questions(ls: Any) -> bool:
    """Can a question be put to this client? `window.showMessage` is younger than the request
    and often left out (eglot), so only a client that declares no `window` capabilities at
    all, and is none the server knows, is taken not to show questions."""
    return getattr(ls.client_capabilities, "window", None) is not None or kind(ls) in ASKERS


async def answer(ls: Any, request: Awaitable[Any]) -> Any:
    """The client's answer to `request`, or NoAnswer after answerTimeout.

    Shielded: a late answer must find its request still pending (pygls fails on a
    cancelled one); a cancel of the task still ends this wait at once.
    """
    try:
        return await asyncio.wait_for(asyncio.shield(request), ls.config.options.answer_timeout)
    except TimeoutError:
        raise NoAnswer() from None


def unanswered(ls: Any, what: str, consequence: str) -> str:
    """Say plainly that the editor did not answer; the text is also what the agent is told."""
    text = (f"agent-lsp: the editor did not answer {what} within {ls.config.options.answer_timeout:g} s "
            f"(answerTimeout); {consequence}")
    ls.show(text, types.MessageType.Error)
    ls.log_line(text, types.MessageType.Error)
    return text


def cannot_show(ls: Any, question: str) -> str:
    """Say plainly that this editor cannot show a question; the text is also what the agent is told."""
    first = " ".join(question.split())[:200]
    text = (f"agent-lsp: this editor cannot show the question \"{first}\" (it declares no "
            "window capabilities), so that step was not run")
    ls.show(text, types.MessageType.Error)
    ls.log_line(text, types.MessageType.Error)
    return text
