"""agentLsp.acceptEdit / agentLsp.rejectEdit: the person's answer to an edit in the inline review.

The commands answer at once: the tool call waiting on the decision then sends (or
drops) the edit. Answering first matters for eglot, which runs executeCommand
synchronously and sends no didChange until it is idle again.
"""

from __future__ import annotations

from typing import Any

from .. import command_args as c
from ..app import AgentServer, server
from .. import reach
from ..review_queue import ACCEPT_TITLE, PendingEdit


def _pending(ls: AgentServer, command: str, args: tuple[Any, ...]) -> PendingEdit:
    uri = None
    if args:
        arg = c.single_object(command, args)
        uri = arg.get("uri")
        if uri is not None and not isinstance(uri, str):
            raise c.bad(f"{command}: uri must be a string")
    item = ls.review.pending(uri)
    if item is None:
        where = f" for {uri}" if uri else ""
        raise c.bad(f"{command}: no agent edit is waiting for review{where}")
    return item


@server.command(c.ACCEPT_EDIT)
def accept_edit(ls: AgentServer, *args: Any) -> dict[str, Any]:
    item = _pending(ls, c.ACCEPT_EDIT, args)
    if item.carries_edit and not reach.applies_edits(ls):  # the server may not send it: the client applies the action's edit
        raise c.bad(f"{c.ACCEPT_EDIT}: this editor takes no workspace/applyEdit; "
                    f"pick \"{ACCEPT_TITLE}\" in the code actions, which carries the edit")
    ls.review.resolve(item, True)
    return {"ok": True, "uri": item.uri, "accepted": True}


@server.command(c.REJECT_EDIT)
def reject_edit(ls: AgentServer, *args: Any) -> dict[str, Any]:
    item = _pending(ls, c.REJECT_EDIT, args)
    ls.review.resolve(item, False)
    return {"ok": True, "uri": item.uri, "accepted": False}
