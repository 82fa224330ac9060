"""What a tool call can see: the workspace, the Host, the settings and the plan."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .diagnostics.watch import Diagnostics
from .host import Host
from .policy.gate import Gate
from .settings import Settings
from .state.checkpoints import TaskChanges
from .workspace.paths import Workspace
from .workspace.textio import INLINE_READ_BYTES, read_disk_text

if TYPE_CHECKING:
    from .loop import Session


@dataclass
class ToolContext:
    workspace: Workspace
    host: Host
    settings: Settings
    todos: list[dict[str, Any]] = field(default_factory=list)
    # Each file's text as the agent last saw it (read_file, or its own accepted edit),
    # so a whole-file write_file can be checked against what it was written from.
    seen: dict[Path, str] = field(default_factory=dict)
    # the permission rules in force, with the ones the person allowed for this session
    gate: Gate = field(default_factory=Gate)
    # what the running task changed (for undo); set by the loop at the start of each task
    changes: TaskChanges | None = None
    # the session running these calls: spawn_agent asks it for a child (Session.fork)
    session: Session | None = None
    # the problems around each edit (agent/diagnostics/): the agent's own servers, a fix's target
    diagnostics: Diagnostics = field(init=False)

    def __post_init__(self) -> None:
        self.diagnostics = Diagnostics(self)

    async def read_text(self, path: Path) -> str:
        """The text as the person sees it: the Host's buffer if it has one, else the disk.

        Raises UnicodeDecodeError for binary files (callers turn that into a message).
        """
        text = await self.host.read_text(path)
        if text is not None:
            return text
        try:
            small = path.stat().st_size <= INLINE_READ_BYTES
        except OSError:
            small = False
        if small:  # a thread hop costs more than reading a page-cached small file (~tens of us)
            return read_disk_text(path)
        return await asyncio.to_thread(read_disk_text, path)
