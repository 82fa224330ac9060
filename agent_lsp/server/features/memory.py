"""agentLsp.showMemory: where the agent's memory of this workspace lives, so the editor opens it.

The file is created (empty) if the agent has not written one yet, so `{path}` can always
be opened and edited; the agent reads it at the start of its next session.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ...agent.state import memory
from .. import command_args as c
from ..app import AgentServer, server


@server.command(c.SHOW_MEMORY)
async def show_memory(ls: AgentServer, *args: Any) -> dict[str, Any]:
    root = ls.tasks.workspace_for(None).root
    path = await asyncio.to_thread(memory.ensure, root)
    return {"path": str(path)}
