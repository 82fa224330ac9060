"""shutdown: the session's MCP servers stop before the editor sends exit.

(When the editor just goes away, stdin's end stops the event loop, and asyncio's own
teardown cancels each server's owner task, whose shielded SDK shutdown still stops the
server's process group.)
"""

from __future__ import annotations

import asyncio
import logging

from lsprotocol import types

from ..app import AgentServer, server

log = logging.getLogger("agent_lsp.server")


@server.feature(types.SHUTDOWN)
async def shutdown(ls: AgentServer, params: None = None) -> None:
    if ls.tasks is None:
        return
    try:
        await asyncio.wait_for(ls.tasks.close(), 10)
    except Exception as e:  # shutting down must answer, whatever a server does
        log.info("closing the session at shutdown failed: %r", e)
