"""What a task changed, and its inverse: the record `undo` works from.

A task changes files two ways. Its edits (edit_file, write_file) are seen one by one
as they are accepted. Its commands can change anything, so in a git work tree each
command is bracketed by two snapshots of the whole tree, taken the way Codex did it:
a temporary GIT_INDEX_FILE (a copy of the real index, so unchanged files are not
hashed again), `git add --all` (tracked and untracked-but-not-ignored files), then
`git write-tree`. No ref moves, the real index is untouched, and the objects are
unreferenced so git's gc reclaims them. Outside git, what commands change is not
covered, and the undo says so.

For each file the record keeps the bytes before the task first touched it and after
it last did. Undo restores `before` only where the file still holds `after`: a file
the person (or another tool) changed since is left alone and named in the report,
the lesson of checkpoint tools that reset whole trees and lost people's work. A file the
editor reported the person saved (or holds unsaved edits of) while a command ran is
marked too: the snapshots cannot tell the person's change from the command's. Undo
writes only inside the task's folder, never through a folder that became a symlink, and
through textio's exclusive temporary files. The snapshots run git through
workspace/safegit.py: nothing the repository's config names runs.

The last task per workspace folder is kept in the state dir
(`$XDG_STATE_HOME/agent-lsp/checkpoints/`), so `agent-lsp undo` finds it after the
process that ran the task is gone.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..host import FileChange, Host
from ..workspace.safegit import filter_overrides, run_git
from ..workspace.textio import write_bytes_atomic, write_text_atomic
from . import state_dir

log = logging.getLogger("agent_lsp.checkpoints")

CONFLICT = "changed by someone else between the task's own steps"
EDITED = "changed in the editor while the agent's command ran"
OUTSIDE = "outside the workspace (a folder on its path is a symlink now): not written"
GIT_TIMEOUT = 60.0


def is_command(tool: Any) -> bool:
    """A tool that may change any file: bash, and MCP tools that are not read-only."""
    return tool.name == "bash" or (tool.name.startswith("mcp__") and not tool.read_only)


# ------------------------------------------------------------------ git snapshots


class GitTree:
    """Snapshots of one git work tree as tree objects; nothing the person sees in git changes."""

    def __init__(self, top: Path) -> None:
        self.top = top

    @classmethod
    def find(cls, folder: Path) -> "GitTree | None":
        try:
            out = _git(folder, "rev-parse", "--show-toplevel")
        except (OSError, subprocess.SubprocessError):
            return None
        return cls(Path(out.decode().strip())) if out.strip() else None

    def snapshot(self) -> str:
        scratch = state_dir() / "snapshots"  # not $TMPDIR: it may lie inside the work tree
        scratch.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="snap-", dir=scratch) as tmp:
            index = Path(tmp) / "index"
            env = {"GIT_INDEX_FILE": str(index)}
            filters = filter_overrides(self.top)  # the repository's filter drivers, emptied
            real = Path(_git(self.top, "rev-parse", "--git-path", "index").decode().strip())
            real = real if real.is_absolute() else self.top / real
            if real.exists():
                shutil.copyfile(real, index)
            else:
                try:
                    run_git(self.top, "read-tree", "HEAD", env=env, filters=filters)
                except subprocess.CalledProcessError:
                    pass  # no commit yet: start from an empty index
            run_git(self.top, "add", "--all", "--", ".", env=env, filters=filters)
            return run_git(self.top, "write-tree", env=env, filters=filters).decode().strip()

    def changed(self, a: str, b: str) -> list[tuple[Path, str | None, str | None]]:
        """(path, blob before or None, blob after or None) for each regular file that differs."""
        out = _git(self.top, "diff-tree", "-r", "-z", "--no-renames", a, b).split(b"\0")
        rows: list[tuple[Path, str | None, str | None]] = []
        i = 0
        while i + 1 < len(out):
            meta, name = out[i].decode(), out[i + 1]
            i += 2
            if not meta.startswith(":"):
                continue
            old_mode, new_mode, old_sha, new_sha, _status = meta[1:].split(" ")
            if {old_mode, new_mode} & {"120000", "160000"}:
                continue  # symlinks and submodules are not restored as files
            zero = "0" * len(old_sha)
            rows.append((self.top / os.fsdecode(name), None if old_sha == zero else old_sha,
                         None if new_sha == zero else new_sha))
        return rows

    def blob(self, sha: str) -> bytes:
        return _git(self.top, "cat-file", "blob", sha)


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> bytes:
    return run_git(cwd, *args, env=env, timeout=GIT_TIMEOUT)


# ------------------------------------------------------------------ the record


@dataclass
class FileRecord:
    path: Path
    before: bytes | None  # None: the file did not exist before the task
    after: bytes | None  # what the task left; None: it deleted the file
    conflict: str | None = None


@dataclass
class TaskChanges:
    """Every file one task changed; saved to the state dir after each change."""

    root: Path
    task: str = ""
    started: float = field(default_factory=time.time)
    files: dict[Path, FileRecord] = field(default_factory=dict)
    uncovered_commands: int = 0  # commands run outside git: their changes are not in `files`
    undone: bool = False
    git: GitTree | None = None
    _git_known: bool = False

    @classmethod
    def begin(cls, root: Path, task: str) -> "TaskChanges":
        changes = cls(Path(root), task=" ".join(task.split())[:200])
        changes.save()
        return changes

    def record(self, path: Path, before: bytes | None, after: bytes | None, *, save: bool = True) -> None:
        rec = self.files.get(path)
        if rec is None:
            self.files[path] = FileRecord(path, before, after)
        else:
            if rec.after != before and rec.conflict is None:
                rec.conflict = CONFLICT
            rec.after = after
        if save:
            self.save()

    def record_edit(self, change: FileChange) -> None:
        before = None if change.before is None else change.before.encode("utf-8")
        self.record(change.path, before, change.after.encode("utf-8"))

    # ------------------------------------------------------------ commands

    def _tree(self) -> GitTree | None:
        if not self._git_known:
            self.git, self._git_known = GitTree.find(self.root), True
        return self.git

    async def around_command(self, run: Callable[[], Any], host: Host | None = None) -> Any:
        """Run a command between two snapshots and record what it changed (git), or count it (no git).

        Files `host` says the person changed while it ran are marked, not attributed to it.
        """
        import asyncio

        tree = await asyncio.to_thread(self._tree)
        before = None
        if tree is not None:
            try:
                before = await asyncio.to_thread(tree.snapshot)
            except (OSError, subprocess.SubprocessError) as e:
                log.warning("no snapshot before the command: %s", e)
        if before is None:
            self.uncovered_commands += 1
            self.save()
            return await run()
        started = time.monotonic()
        try:
            return await run()
        finally:
            try:
                edited = host.edited_since(started) if host is not None else set()
            except Exception as e:  # what the editor said must not cost the command's record
                log.warning("cannot tell which files the editor changed: %r", e)
                edited = set()
            await asyncio.shield(asyncio.to_thread(self._after_command, tree, before, edited))

    def _after_command(self, tree: GitTree, before: str, edited: set[Path] | None = None) -> None:
        try:
            after = tree.snapshot()
            for path, a, b in tree.changed(before, after):
                self.record(path, None if a is None else tree.blob(a), None if b is None else tree.blob(b), save=False)
                if edited and path.resolve() in edited:
                    self.files[path].conflict = EDITED
            self.save()  # once per command: a command may change thousands of files
        except (OSError, subprocess.SubprocessError) as e:
            log.warning("no snapshot after the command: %s", e)
            self.uncovered_commands += 1
            self.save()

    # ------------------------------------------------------------ the state dir

    def save(self) -> None:
        data = {
            "root": str(self.root), "task": self.task, "started": self.started, "undone": self.undone,
            "uncoveredCommands": self.uncovered_commands,
            "files": [{"path": str(r.path), "before": _b64(r.before), "after": _b64(r.after), "conflict": r.conflict}
                      for r in self.files.values()],
        }
        try:
            write_text_atomic(record_path(self.root), json.dumps(data) + "\n")
        except OSError as e:  # a record that cannot be written must not break the task
            log.warning("cannot save the undo record: %s", e)

    @classmethod
    def load(cls, root: Path) -> "TaskChanges | None":
        try:
            data = json.loads(record_path(root).read_text(encoding="utf-8"))
            changes = cls(Path(data["root"]), task=data.get("task", ""), started=data.get("started", 0.0),
                          uncovered_commands=int(data.get("uncoveredCommands", 0)), undone=bool(data.get("undone")))
            for f in data.get("files", []):
                path = Path(f["path"])
                changes.files[path] = FileRecord(path, _unb64(f["before"]), _unb64(f["after"]), f.get("conflict"))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return changes


def record_path(root: Path) -> Path:
    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:24]
    return state_dir() / "checkpoints" / f"{key}.json"


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


# ------------------------------------------------------------------ the inverse


@dataclass
class Restore:
    path: Path
    current: bytes | None  # what the file holds now (None: absent)
    target: bytes | None  # what it held before the task (None: delete it)


@dataclass
class UndoPlan:
    restores: list[Restore] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    nothing: str | None = None  # why there is nothing to undo at all


def plan(changes: "TaskChanges | None", current: Callable[[Path], bytes | None]) -> UndoPlan:
    """What undoing `changes` would do, given what each file holds now (`current`)."""
    if changes is None:
        return UndoPlan(nothing="nothing to undo: no task has run here yet")
    if changes.undone:
        return UndoPlan(nothing="nothing to undo: the last task was already undone")
    out = UndoPlan()
    for rec in changes.files.values():
        now = current(rec.path)
        if not unmoved(rec.path):
            out.skipped.append((rec.path, OUTSIDE))
        elif rec.conflict:
            out.skipped.append((rec.path, rec.conflict))
        elif now != rec.after:
            why = "deleted since the task last touched it" if now is None else "changed since the task last touched it"
            out.skipped.append((rec.path, why))
        elif now != rec.before:
            out.restores.append(Restore(rec.path, now, rec.before))
    if not out.restores and not out.skipped and not changes.uncovered_commands:
        out.nothing = "nothing to undo: the last task changed no files"
    return out


def read_disk(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def unmoved(path: Path) -> bool:
    """Is `path`'s folder still where it was recorded (no folder on the way became a symlink)?

    Recorded paths are resolved ones (inside a workspace folder); a folder swapped for a
    symlink since would make a restore land wherever the link points.
    """
    try:
        return path.is_absolute() and path.parent.resolve() == path.parent
    except (OSError, RuntimeError):
        return False


def write_disk(restore: Restore) -> None:
    """Put one file back as it was before the task (delete it if the task created it)."""
    if not unmoved(restore.path):
        raise PermissionError(OUTSIDE)
    if restore.target is None:
        restore.path.unlink(missing_ok=True)
        return
    write_bytes_atomic(restore.path, restore.target)


def report(changes: TaskChanges, restored: list[Path], skipped: list[tuple[Path, str]],
           display: Callable[[Path], str] = str) -> str:
    """What the undo did, for a person: restored, skipped and why, and what it could not cover."""
    lines = [f"undid the last task ({changes.task[:80]}): restored {len(restored)} file{'s' if len(restored) != 1 else ''}"]
    lines += [f"  restored {display(p)}" for p in restored]
    lines += [f"  skipped {display(p)}: {why}" for p, why in skipped]
    if changes.uncovered_commands:
        n = changes.uncovered_commands
        lines.append(f"  not covered: {n} command{'s' if n != 1 else ''} ran outside a git work tree, "
                     "so what they changed was not recorded and is not undone")
    return "\n".join(lines)


def undo_on_disk(root: Path, display: Callable[[Path], str] = str) -> tuple[bool, str]:
    """Undo the last task run in `root` straight on disk (the terminal). (anything undone?, report)."""
    changes = TaskChanges.load(root)
    p = plan(changes, read_disk)
    if p.nothing:
        return False, p.nothing
    assert changes is not None
    restored: list[Path] = []
    skipped = list(p.skipped)
    for r in p.restores:
        try:
            write_disk(r)
            restored.append(r.path)
        except PermissionError as e:
            skipped.append((r.path, str(e) if str(e) == OUTSIDE else f"could not be written: {e}"))
        except OSError as e:
            skipped.append((r.path, f"could not be written: {e}"))
    changes.undone = True
    changes.save()
    return True, report(changes, restored, skipped, display)
