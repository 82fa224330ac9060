"""shutdown: the language servers the agent started for diagnostics end with the editor's session."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from ..app import AgentServer, server


@server.feature(types.SHUTDOWN)
async def shutdown(ls: AgentServer, params: None) -> None:
    session = getattr(ls.tasks, "session", None)
    if session is not None:
        try:
            await asyncio.wait_for(session.ctx.diagnostics.aclose(), 5)
        except Exception:  # shutting down must answer, whatever a child server does
            pass
