"""workspace/executeCommand agentLsp.listSessions and agentLsp.showSession: this
workspace's earlier sessions, read back from their transcripts, so an editor can reopen
one read-only (and start a new session from its summary).

Both read files only (in a thread, so the editor keeps being answered) and never touch
the running session.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from ...agent.state import past_sessions
from .. import command_args as c
from ..app import AgentServer, server


def _roots(ls: AgentServer) -> list[Path]:
    return ls.roots() or [Path(os.getcwd())]


@server.command(c.LIST_SESSIONS)
async def list_sessions(ls: AgentServer, *args: Any) -> list[dict[str, Any]]:
    if args and not (len(args) == 1 and args[0] in (None, {}, [])):
        raise c.bad(f"{c.LIST_SESSIONS} takes no arguments")
    found = await asyncio.to_thread(past_sessions.list_sessions, _roots(ls))
    return [s.brief() for s in found]


@server.command(c.SHOW_SESSION)
async def show_session(ls: AgentServer, *args: Any) -> dict[str, Any]:
    arg = c.single_object(c.SHOW_SESSION, args)
    session_id = arg.get("id")
    if not isinstance(session_id, str) or not session_id:
        raise c.bad(f"{c.SHOW_SESSION}: id must be a session id from {c.LIST_SESSIONS}, e.g. [{{\"id\": \"20260101-120000-0123abcd\"}}]")

    def load() -> dict[str, Any] | None:
        s = past_sessions.find_session(session_id, _roots(ls))
        if s is None:
            return None
        return {**s.brief(), "events": past_sessions.events(s), "summary": past_sessions.summary(s)}

    found = await asyncio.to_thread(load)
    if found is None:
        raise c.bad(f"{c.SHOW_SESSION}: no session {session_id[:60]} in this workspace")
    return found
