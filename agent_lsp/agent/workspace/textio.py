"""Text on disk: reading it as editors count it, and writes that never leave a file half-written.

The new bytes go to a temporary file created exclusively (O_EXCL|O_NOFOLLOW: never an
existing file, never through a symlink) in the target's own folder, are flushed to disk
(fsync), and `os.replace` swaps them in: a crash, a full disk or a cancel leaves either
the old file or the new one. A temporary file a kill leaves behind has a recognisable
name and is swept at the next start (workspace/leftovers.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .leftovers import create_temp

_UMASK = os.umask(0)
os.umask(_UMASK)


def write_bytes_atomic(path: Path, data: bytes) -> int:
    """Write `data` to `path` (creating parents), keeping its mode; return the byte count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    fd, tmp = create_temp(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _sync_folder(path.parent)
    return len(data)


def write_text_atomic(path: Path, text: str) -> int:
    """Write `text` as UTF-8 to `path` (creating parents); return the byte count."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def _sync_folder(folder: Path) -> None:
    """Flush the rename itself (the folder's entry), where the platform allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


INLINE_READ_BYTES = 64 * 1024  # below this a read is cheaper on the loop than a thread hop


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


def read_json_object(path: Path) -> tuple[dict[str, Any], str | None]:
    """The file's object, or {} and a note saying why it was not used (a missing file is no note)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as e:
        return {}, f"cannot read {path}: {type(e).__name__}"
    try:
        value = json.loads(text)
    except ValueError as e:
        return {}, f"ignored {path}: not valid JSON ({e})"
    if not isinstance(value, dict):
        return {}, f"ignored {path}: it must hold a JSON object"
    return value, None
