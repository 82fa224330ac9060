"""A Host that owns no editor: edits go straight to disk, atomically, if nothing changed meanwhile."""

from __future__ import annotations

import asyncio

from .context import read_disk_text
from .fileio import write_text_atomic
from .host import EditOutcome, EditStatus, FileChange, Host


class DiskHost(Host):
    """Accepts every edit it is given (confirmation happens before, in run_tool) and writes it."""

    async def apply_edit(self, change: FileChange) -> EditOutcome:
        return await asyncio.to_thread(apply_to_disk, change)


def apply_to_disk(change: FileChange) -> EditOutcome:
    """Write `change.after` unless the file no longer holds `change.before` (then it is stale)."""
    path = change.path
    try:
        if change.before is None:
            if path.exists():
                return EditOutcome(EditStatus.STALE, "the file was created meanwhile")
        else:
            try:
                current = read_disk_text(path)
            except FileNotFoundError:
                return EditOutcome(EditStatus.STALE, "the file was deleted meanwhile")
            if current != change.before:
                return EditOutcome(EditStatus.STALE, "the file on disk changed meanwhile")
        write_text_atomic(path, change.after)
    except (OSError, UnicodeDecodeError) as e:
        return EditOutcome(EditStatus.FAILED, f"{type(e).__name__}: {e}")
    return EditOutcome(EditStatus.ACCEPTED)
