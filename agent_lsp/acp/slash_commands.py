"""Slash commands in an ACP client: advertised after session/new and session/load, run without the model.

A client shows `available_commands_update` as its "/" menu and sends the chosen command
as a prompt ("/undo"). The commands are the terminal chat's and the editor commands'
own, doing the same thing:

- `/undo`: take back the last task run in this folder, as agentLsp.undoTask and
  `agent-lsp undo` do (agent/checkpoints.py decides what may be restored); files are
  written through the client when it offers fs/write_text_file, so the editor's buffers
  follow, and a file whose unsaved buffer changed since the task is left alone.
- `/memory`: show what the agent remembers about this project (agentLsp.showMemory's file).
- `/always-allow`: keep the command rules allowed "for this session" as rules of this
  project (.agent-lsp/permissions.json): the project-wide "always" of the terminal and the
  editors, which a permission request no longer offers as a second allow_always option.

Chat's `/new` and `/exit` are left out on purpose: a client starts and closes sessions
itself (session/new), and a /new inside one session would mix two conversations in one
transcript that session/load then replays as one.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

from acp import helpers
from acp.schema import AvailableCommand, AvailableCommandsUpdate

from ..agent.state import checkpoints, memory
from ..agent.policy.permissions import add_project_rules, permissions_path


@dataclass(frozen=True)
class Command:
    name: str
    description: str


COMMANDS: tuple[Command, ...] = (
    Command("undo", "Take back the last task: its files as they were before it"),
    Command("memory", "Show what the agent remembers about this project"),
    Command("always-allow", "Keep the commands allowed for this session as rules of this project"),
)
NAMES = {c.name for c in COMMANDS}


def available_update() -> AvailableCommandsUpdate:
    return AvailableCommandsUpdate(
        session_update="available_commands_update",
        available_commands=[AvailableCommand(name=c.name, description=c.description) for c in COMMANDS],
    )


def parse(text: str) -> tuple[str, str] | None:
    """("undo", "") for a prompt that is one of our commands; None for anything else (it goes to the model)."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, arg = stripped[1:].partition(" ")
    return (name, arg.strip()) if name in NAMES else None


@dataclass
class UndoIO:
    """How /undo reads and writes files in this client: its buffers when it offers them."""

    read_text: Callable[[Path], Awaitable[str | None]]  # the client's text, None: read the disk
    write_text: Callable[[Path, str], Awaitable[bool]] | None  # True once the client wrote it
    display: Callable[[Path], str]


async def undo(root: Path, io: UndoIO) -> tuple[list[checkpoints.Restore], str]:
    """Undo the last task in `root`: (what was restored, the report for the person)."""
    changes = await asyncio.to_thread(checkpoints.TaskChanges.load, root)
    current: dict[Path, bytes | None] = {}
    for path in (changes.files if changes is not None else {}):
        text = await io.read_text(path)
        current[path] = text.encode("utf-8") if text is not None else await asyncio.to_thread(checkpoints.read_disk, path)
    plan = checkpoints.plan(changes, lambda p: current.get(p))
    if plan.nothing:
        return [], plan.nothing
    assert changes is not None
    restored: list[checkpoints.Restore] = []
    skipped = list(plan.skipped)
    for r in plan.restores:
        try:
            if not await _restore(r, io):
                await asyncio.to_thread(checkpoints.write_disk, r)
            restored.append(r)
        except OSError as e:
            skipped.append((r.path, f"could not be written: {e}"))
    changes.undone = True
    await asyncio.to_thread(changes.save)
    return restored, checkpoints.report(changes, [r.path for r in restored], skipped, io.display)


async def _restore(r: checkpoints.Restore, io: UndoIO) -> bool:
    """Write a text restore through the client; False: the disk does it (deletions, binaries, no fs)."""
    if io.write_text is None or r.target is None:
        return False
    try:
        text = r.target.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return await io.write_text(r.path, text)


async def undo_in_client(host: Any, root: Path) -> str:
    """/undo for an AcpHost: through the client's buffers and writes, shown as one tool call."""

    async def write(path: Path, text: str) -> bool:
        if not host.can_write:
            return False
        await host.conn.write_text_file(session_id=host.session_id, path=str(path), content=text)
        return True

    def display(p: Path) -> str:
        return str(p.relative_to(root)) if p.is_relative_to(root) else str(p)

    restored, text = await undo(root, UndoIO(host.read_text, write, display))
    if restored:
        call_id = f"undo-{uuid.uuid4().hex[:12]}"
        host.send(helpers.start_tool_call(call_id, "Undo the last task", kind="edit", status="in_progress",
                                          raw_input={"command": "/undo"}))
        host.send(helpers.update_tool_call(
            call_id, status="completed", raw_output={"output": text},
            content=restored_diffs(restored) + [helpers.tool_content(helpers.text_block(text))]))
    return text


def show_memory(root: Path) -> str:
    path = memory.memory_path(root)
    text = memory.read(root).strip()
    if not text:
        return f"The agent remembers nothing about this project yet ({path}); it writes there with `remember`."
    return f"What the agent remembers about this project ({path}):\n\n{text}"


def always_allow(root: Path, session_rules: list[str]) -> str:
    if not session_rules:
        return ("No command was allowed for this session yet: answer a command's question with "
                "\"Allow … for this session\" first, then /always-allow keeps those rules for this project.")
    note = add_project_rules(root, list(session_rules))
    shown = ", ".join(f"`{r}`" for r in session_rules)
    if note:
        return note
    return f"Allowed {shown} in this project from now on ({permissions_path(root)})."


def restored_diffs(restored: list[checkpoints.Restore]) -> list[Any]:
    """A diff per restored text file, to show on the undo's tool call."""
    out = []
    for r in restored:
        try:
            old = r.current.decode("utf-8") if r.current is not None else None
            new = r.target.decode("utf-8") if r.target is not None else ""
        except UnicodeDecodeError:
            continue
        out.append(helpers.tool_diff_content(str(r.path), new, old))
    return out
