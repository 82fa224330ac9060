"""Temporary files of atomic writes: a name anyone can recognise, and a sweep for those a kill left.

An atomic write puts the new bytes into a temporary file beside the target and renames
it over the target. If agent-lsp is killed between the two, the temporary file stays in
the person's tree. Each one is created with O_CREAT|O_EXCL|O_NOFOLLOW (never an
existing file, never through a symlink) under a name of the form
`.<target>.<random>.agent-lsp-tmp`, and its path is noted first in a journal in the
state dir (`$XDG_STATE_HOME/agent-lsp/leftovers/<pid>`). When agent-lsp starts, the
journals of processes that are gone are read and the temporary files they name are
removed — only files with the recognisable suffix, never following a symlink — so a
kill leaves nothing behind after the next start.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from ..state import state_dir

SUFFIX = ".agent-lsp-tmp"
MAX_JOURNAL = 256 * 1024  # bytes of one process's journal before it is compacted
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _journal_dir() -> Path:
    return state_dir() / "leftovers"


def _journal() -> Path:
    return _journal_dir() / str(os.getpid())


def temp_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}{SUFFIX}")


def create_temp(target: Path, mode: int = 0o600) -> tuple[int, Path]:
    """A new, exclusively created temporary file beside `target`: (fd, path), noted in the journal."""
    for _ in range(16):
        tmp = temp_name(target)
        _note(tmp)
        try:
            return os.open(tmp, _FLAGS, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {target}")


def _note(tmp: Path) -> None:
    try:
        _journal_dir().mkdir(parents=True, exist_ok=True)
        journal = _journal()
        with open(journal, "a", encoding="utf-8", errors="surrogateescape") as f:
            f.write(os.fsdecode(os.fspath(tmp)) + "\n")
            big = f.tell() > MAX_JOURNAL
        if big:  # a long-lived server: keep only the names that still exist
            _compact(journal)
    except OSError:
        pass  # a journal that cannot be written must not stop the write itself


def _compact(journal: Path) -> None:
    names = journal.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    recent = names[-16:]  # noted just now, maybe not created yet (another thread)
    alive = [n for n in dict.fromkeys(names[:-16]) if os.path.lexists(n)] + recent
    journal.write_text("".join(n + "\n" for n in alive), encoding="utf-8", errors="surrogateescape")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep() -> list[Path]:
    """Remove the temporary files that processes now gone left behind; return what was removed."""
    removed: list[Path] = []
    try:
        journals = list(_journal_dir().iterdir())
    except OSError:
        return removed
    for journal in journals:
        if not journal.name.isdigit() or int(journal.name) == os.getpid() or _alive(int(journal.name)):
            continue
        try:
            names = journal.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        except OSError:
            continue
        for name in dict.fromkeys(names):
            path = Path(name)
            if not path.name.endswith(SUFFIX) or not path.name.startswith("."):
                continue
            try:
                if not path.is_symlink() and path.is_file():
                    path.unlink()
                    removed.append(path)
            except OSError:
                pass
        try:
            journal.unlink()
        except OSError:
            pass
    return removed
