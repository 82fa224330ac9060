"""The agent's memory of a workspace: dated notes it wrote itself, read back next session.

The file lives in the state dir (`$XDG_STATE_HOME/agent-lsp/memory/<folder>-<hash>.md`),
keyed by the workspace's resolved path, never in the repository: it is the agent's and
the person's, not the project's. It joins the system prompt when a session starts; a
note written during a session is already in that session's history, so the prompt is
never rewritten and messages stay prefix-stable. Past MAX_BYTES a new note is refused
with an error asking the model to condense (forget), rather than cutting anything.

A note is one block: a line `- YYYY-MM-DD: text`, continued by indented lines. Secrets of
the common formats (state/secret_formats.py) are replaced before a note is written: a memory
outlives the task that saw them, and is read back into every later session.
"""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

from ..workspace.textio import write_text_atomic
from . import state_dir
from .secret_formats import scrub_secrets

MAX_BYTES = 25 * 1024
HEADER = "# agent-lsp memory for {root}\n\n"
_NOTE_START = re.compile(r"^- \d{4}-\d{2}-\d{2}: ")


def memory_path(root: Path) -> Path:
    resolved = Path(root).resolve()
    digest = hashlib.sha256(str(resolved).encode("utf-8")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", resolved.name) or "root"
    return state_dir() / "memory" / f"{name}-{digest}.md"


def read(root: Path) -> str:
    try:
        return memory_path(root).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def notes_of(text: str) -> tuple[str, list[str]]:
    """The header (anything before the first note) and the notes, each a block of lines."""
    head: list[str] = []
    notes: list[list[str]] = []
    for line in text.splitlines():
        if _NOTE_START.match(line):
            notes.append([line])
        elif notes:
            notes[-1].append(line)
        else:
            head.append(line)
    return "\n".join(head), ["\n".join(n).rstrip() for n in notes]


def for_prompt(root: Path) -> str:
    """The notes as the system prompt shows them ('' when there are none)."""
    _, notes = notes_of(read(root))
    return "\n".join(notes)


def _write(root: Path, head: str, notes: list[str]) -> None:
    head = head.strip() or HEADER.format(root=Path(root).resolve()).strip()
    body = "".join(n + "\n" for n in notes)
    write_text_atomic(memory_path(root), head + "\n" + ("\n" + body if body else ""))


def remember(root: Path, note: str, today: str | None = None) -> str:
    """Append a dated note; an error text (starting with `error:`) when it does not fit."""
    lines = [ln.rstrip() for ln in scrub_secrets(note).strip().splitlines() if ln.strip()]
    if not lines:
        return "error: the note is empty"
    entry = f"- {today or time.strftime('%Y-%m-%d')}: {lines[0]}" + "".join(f"\n  {ln.strip()}" for ln in lines[1:])
    head, notes = notes_of(read(root))
    size = len(("\n".join(notes + [entry])).encode("utf-8"))
    if size > MAX_BYTES:
        return (f"error: the memory is full ({size} of {MAX_BYTES} bytes with this note). Condense it first: "
                "forget(match) removes the notes containing match; then remember one shorter note that keeps "
                "what still matters.")
    _write(root, head, notes + [entry])
    return f"remembered ({size} of {MAX_BYTES} bytes used): {entry}"


def forget(root: Path, match: str) -> str:
    needle = match.strip().lower()
    if not needle:
        return "error: match must not be empty (it selects the notes to remove)"
    head, notes = notes_of(read(root))
    kept = [n for n in notes if needle not in n.lower()]
    removed = len(notes) - len(kept)
    if removed == 0:
        return f"no note contains {match!r}; nothing removed ({len(notes)} notes kept)"
    _write(root, head, kept)
    return f"removed {removed} note{'s' if removed != 1 else ''}; {len(kept)} kept"


def clear(root: Path) -> Path:
    path = memory_path(root)
    _write(root, "", [])
    return path


def ensure(root: Path) -> Path:
    """The memory file, created empty if it does not exist yet (so an editor can open it)."""
    path = memory_path(root)
    if not path.exists():
        _write(root, "", [])
    return path
