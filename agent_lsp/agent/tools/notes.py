"""remember and forget: the agent's notes about this workspace, kept across sessions (agent/state/memory.py)."""

from __future__ import annotations

import asyncio

from ..state import memory
from ..context import ToolContext
from ..registry import tool


@tool(
    "Write down something worth knowing in later sessions of this workspace: how to build and "
    "test it, a convention, a pitfall you found. One short, self-contained fact per note. Notes "
    "are shown to you at the start of every new session.",
    note="the fact to keep, in one or a few lines",
)
async def remember(ctx: ToolContext, note: str) -> str:
    text = ctx.settings.scrub(note)  # a key pasted into a task must not be kept in a file
    return await asyncio.to_thread(memory.remember, ctx.workspace.root, text)


@tool(
    "Remove the notes of your memory that contain `match` (case-insensitive), e.g. an outdated "
    "fact, or to make room when remember says the memory is full.",
    match="text that the notes to remove contain",
)
async def forget(ctx: ToolContext, match: str) -> str:
    return await asyncio.to_thread(memory.forget, ctx.workspace.root, match)
