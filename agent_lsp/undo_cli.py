"""`agent-lsp undo` and `/undo` in `agent-lsp chat`: take the last task run in a folder back.

The record is the one the loop kept in the state dir (agent/checkpoints.py), so the
undo works after the process that ran the task has exited. Files are put back on disk
only where they still hold what the task left; the report names every file it
skipped and why, and says when commands ran outside git (their changes are not covered).
"""

from __future__ import annotations

from pathlib import Path

from .agent import checkpoints

EXIT_UNDONE, EXIT_NOTHING = 0, 1


def undo_folder(directory: Path | str) -> tuple[int, str]:
    """(exit code, report) for undoing the last task run in `directory`."""
    root = Path(directory).resolve()

    def display(p: Path) -> str:
        return str(p.relative_to(root)) if p.is_relative_to(root) else str(p)

    undone, text = checkpoints.undo_on_disk(root, display)
    return (EXIT_UNDONE if undone else EXIT_NOTHING), text


def cmd_undo(directory: str) -> int:
    code, text = undo_folder(directory)
    print(f"agent-lsp: {text}")
    return code
