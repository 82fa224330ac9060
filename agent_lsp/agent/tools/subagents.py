"""spawn_agent: a helper with a fresh context that only looks; only its answer comes back.

A long investigation (where is X handled, how do these modules fit together) fills the
conversation with file contents the main task never needs again. A child runs the same
loop with its own system prompt, the task as its first message and only the read-only
tools (read_file, list_files, grep, and MCP tools that say readOnlyHint), so it cannot
change anything, ask anyone or spawn children of its own: depth is 1. Its messages go to
the transcript marked with the parent call's id, its steps to the Host nested under that
call; the parent's history gets one tool result: the paths the child read (never their
content) and its final answer. spawn_agent is read-only, so several calls in one reply
run in parallel, and the parent's cancel cancels them all.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..context import ToolContext
from ..dispatch import CALL_ID
from ..host import EditOutcome, EditStatus, Event, FileChange, Host
from ..registry import Tool, tool

if TYPE_CHECKING:
    from ..loop import Session

CHILD_TOOLS = ("read_file", "list_files", "grep")
NEST = "  │ "

CHILD_PROMPT = """You are a helper agent. Another coding agent, working in the workspace at {root}, gave you one task.
You can only look: {tools}. You cannot change files, run commands or ask the person.
Work efficiently (at most {steps} tool rounds), then answer with what you found: concrete facts, file
paths and line numbers, short code excerpts where they matter. The other agent sees only your final
answer, not your tool results, so put everything it needs into that answer.
Paths are relative to the workspace root."""


def child_may_use(t: Tool) -> bool:
    return t.read_only and not t.gated and (t.name in CHILD_TOOLS or t.name.startswith("mcp__"))


class ChildHost(Host):
    """The parent's Host as a child sees it: the same buffers, nobody to ask, events nested."""

    def __init__(self, parent: Host, call_id: str) -> None:
        self.parent = parent
        self.call_id = call_id

    async def read_text(self, path: Path) -> str | None:
        return await self.parent.read_text(path)

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        return EditOutcome(EditStatus.REJECTED, "a helper agent cannot edit")

    def emit(self, event: Event) -> None:
        if event.kind in ("text", "answer"):  # the child's words reach the parent as the tool result
            return
        if event.kind in ("usage", "step"):  # the child's own counts: its tokens join the task's when it ends
            return
        kind = "status" if event.kind == "error" else event.kind  # the child's failure is not the task's
        self.parent.emit(Event(kind, NEST + event.text, {**event.data, "parent": self.call_id}))


class ChildTranscript:
    """The parent's transcript, each record marked with the parent call's id."""

    def __init__(self, base: Any, call_id: str) -> None:
        self.base = base
        self.call_id = call_id

    def record(self, kind: str, payload: Any) -> None:
        self.base.record(f"subagent_{kind}", {"parent": self.call_id, "data": payload})


def _add_usage(parent: Any, child: Any) -> None:
    """Count the child's tokens in the parent's turn (when the session keeps a usage tally)."""
    total, part = getattr(parent, "usage", None), getattr(child, "usage", None)
    if total is None or part is None or not dataclasses.is_dataclass(part):
        return
    for f in dataclasses.fields(part):
        mine, theirs = getattr(total, f.name, None), getattr(part, f.name)
        if isinstance(theirs, bool):
            setattr(total, f.name, bool(mine) or theirs)
        elif isinstance(theirs, int) and isinstance(mine, int):
            setattr(total, f.name, mine + theirs)


async def run_child(parent: Session, task: str, call_id: str) -> str:
    settings = dataclasses.replace(parent.settings, max_steps=parent.settings.subagent_max_steps, auto_approve=False)
    tools = {n: t for n, t in parent.tools.items() if child_may_use(t)}
    prompt = CHILD_PROMPT.format(root=parent.workspace.root, tools=", ".join(tools), steps=settings.max_steps)
    transcript = ChildTranscript(parent.transcript, call_id) if parent.transcript is not None else None
    child = parent.fork(ChildHost(parent.host, call_id), settings, system=prompt, tools=tools, transcript=transcript)
    turn = asyncio.ensure_future(child.run_turn(task))
    try:
        # shielded: the child's own cancel handling must finish (its pairing, MCP cancels) before we go on
        result = await asyncio.shield(turn)
    except asyncio.CancelledError:
        turn.cancel()
        await asyncio.wait([turn])
        raise
    finally:
        _add_usage(parent, child)
        await child.client.aclose()
    read = [parent.workspace.display(p) for p in child.ctx.seen]
    head = "Files the helper read: " + (", ".join(read) if read else "(none)")
    if result.status == "error":
        return f"error: the helper agent failed: {result.answer}\n{head}"
    if result.status == "stepLimit":
        head += f"\n(the helper stopped at its step limit of {settings.max_steps} tool rounds)"
    return f"{head}\n\n{result.answer}"


@tool(
    "Have a helper agent investigate one question in a fresh context and get back only its answer "
    "(plus the paths it read). It can read, list and grep files (and use read-only MCP tools) but "
    "not change anything. Use it for research that would otherwise fill this conversation with "
    "file contents; give it a precise, self-contained task. Several calls in one reply run in parallel.",
    read_only=True,
    task="what the helper should find out, with everything it needs to know (it sees nothing of this conversation)",
)
async def spawn_agent(ctx: ToolContext, task: str) -> str:
    if ctx.session is None:
        return "error: spawn_agent needs a running session"
    if not task.strip():
        return "error: task must not be empty"
    return await run_child(ctx.session, task.strip(), CALL_ID.get())
