"""What a tool call can see: the workspace, the Host, the settings and the plan."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostics
from .host import Host
from .paths import Workspace
from .permissions import Gate
from .settings import Settings


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
    changes: Any = None
    # the problems around each edit (agent/diagnostics.py): the agent's own servers, a fix's target
    diagnostics: Diagnostics = field(init=False)

    def __post_init__(self) -> None:
        self.diagnostics = Diagnostics(self)
    session: Any = None  # the loop.Session running these calls (spawn_agent starts a child from it)

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


INLINE_READ_BYTES = 64 * 1024


def read_disk_text(path: Path) -> str:
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise UnicodeDecodeError("utf-8", data[:1], 0, 1, "binary file")
    # newline="" semantics: keep \r\n as it is so edits do not rewrite line endings
    return data.decode("utf-8")


def text_lines(text: str) -> list[str]:
    """The lines as editors, ripgrep and edit_file count them: only \n ends a line.

    (`str.splitlines` also breaks at form feeds, U+2028 and others, which would
    number lines differently from grep and from the editor.)
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
