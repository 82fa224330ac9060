"""The repository's own files that a trusted setting runs, hashed into what was trusted.

Trusting `"diagnosticServers": {"*.py": ["./tools/lint"]}` is trusting the program
`./tools/lint` as it is now; a `git pull` that changes the script must be asked about
again even though the settings text stayed the same. Every word of a setting's value
that names a regular file inside the project (a command, an argument such as
`python3 tools/lint.py`, `rgPath`) has its content hashed into the trust fingerprint.
"""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path
from typing import Any, Iterator

MAX_FILES = 64  # words looked at as files, per value
MAX_HASH_BYTES = 64 * 1024 * 1024  # larger files are fingerprinted by size and mtime


def _words(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError:
            parts = value.split()
        yield from (parts or [value])
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _words(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _words(v)


def _inside(root: Path, word: str) -> Path | None:
    if not word or "\0" in word or word.startswith("-") or "${" in word:
        return None
    path = Path(word) if os.path.isabs(word) else root / word
    try:
        resolved = path.resolve()
        if not resolved.is_relative_to(root) or not resolved.is_file():
            return None
    except (OSError, ValueError):
        return None
    return resolved


def _digest(path: Path) -> str:
    try:
        st = path.stat()
        if st.st_size > MAX_HASH_BYTES:
            return f"size:{st.st_size}:mtime:{st.st_mtime_ns}"
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    except OSError as e:
        return f"unreadable:{type(e).__name__}"


def programs(root: Path | None, value: Any) -> dict[str, str]:
    """Project-relative path -> content hash of each project file the value names."""
    if root is None:
        return {}
    top = Path(root).resolve()
    out: dict[str, str] = {}
    for i, word in enumerate(_words(value)):
        if i >= MAX_FILES * 4 or len(out) >= MAX_FILES:
            break
        path = _inside(top, word)
        if path is not None:
            out[str(path.relative_to(top))] = _digest(path)
    return out
