"""A Host that owns no editor: edits go straight to disk, atomically, if nothing changed meanwhile."""

from __future__ import annotations

import asyncio

from .facehost import read_current, stale_reason
from .host import EditOutcome, EditStatus, FileChange, Host
from .workspace.textio import read_disk_text, write_text_atomic


class DiskHost(Host):
    """Accepts every edit it is given (confirmation happens before, in run_tool) and writes it."""

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        return await asyncio.to_thread(apply_to_disk, change)


def apply_to_disk(change: FileChange) -> EditOutcome:
    """Write `change.after` unless the file no longer holds `change.before` (then it is stale)."""
    current, unreadable = read_current(change.path, read_disk_text)
    if unreadable:
        return EditOutcome(EditStatus.FAILED, unreadable)
    stale = stale_reason(change, current, "file on disk")
    if stale:
        return EditOutcome(EditStatus.STALE, stale)
    try:
        write_text_atomic(change.path, change.after)
    except OSError as e:
        return EditOutcome(EditStatus.FAILED, f"{type(e).__name__}: {e}")
    return EditOutcome(EditStatus.ACCEPTED)
