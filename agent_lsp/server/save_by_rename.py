"""Saving an accepted edit through coc.nvim: a rename there and back.

The server must not write a file behind an open buffer: Vim keeps the buffer modified
with a stale timestamp, and `:w` then warns "The file has been changed since reading
it". Clients with our snippets answer `agentLsp/saveDocument`; coc.nvim is set up
with a `coc-settings.json` entry only, and LSP has no request that saves. What coc
does have is `RenameFile` for a file with a loaded buffer: it renames the buffer and
writes it (`:noautocmd write!`, so no format-on-save), then deletes the old file. Two
renames, to a hidden name beside the file and back, therefore leave the buffer named
as before, written by Vim itself and not modified, its undo history intact, with the
edited text on disk.

The round trip replaces the file (a new inode), so it is only used for a plain file
with one link (not a symlink or a hard link, which would be broken apart); the file
mode is put back afterwards. Anything else, or a client that refuses the renames,
falls back to the server writing the file.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

log = logging.getLogger("agent_lsp.server")

from .clients import COC

SUFFIX = ".agent-lsp-saving"


def wanted(ls: Any) -> bool:
    """Is the client coc.nvim, able to rename files, and without agentLsp/saveDocument?"""
    client = getattr(ls, "editor_client", None)
    if getattr(client, "kind", "") != COC or ls.experimental("saveDocument"):
        return False
    ops = getattr(getattr(getattr(ls.client_capabilities, "workspace", None), "workspace_edit", None),
                  "resource_operations", None) or []
    return any(getattr(op, "value", op) == "rename" for op in ops)


def _hop_path(path: Path) -> Path:
    return path.with_name(f".{path.name}{SUFFIX}")


def _plain_file(path: Path) -> os.stat_result | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        return None
    return st


async def save(ls: Any, path: Path, uri: str, expected: str) -> bool:
    """Have the client write its buffer of `path` by renaming it away and back; True when
    the disk then holds `expected`. False: nothing was done, or the client refused (the
    caller writes the file itself)."""
    st = await asyncio.to_thread(_plain_file, path)
    hop = _hop_path(path)
    if st is None or hop.exists():
        return False
    hop_uri = from_fs_path(str(hop)) or ""
    edit = types.WorkspaceEdit(document_changes=[
        types.RenameFile(old_uri=uri, new_uri=hop_uri, options=types.RenameFileOptions(overwrite=False)),
        types.RenameFile(old_uri=hop_uri, new_uri=uri, options=types.RenameFileOptions(overwrite=False)),
    ])
    try:
        result = await ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label=f"agent: save {path.name}"))
    except asyncio.CancelledError:
        raise
    except Exception as e:  # an error answer: the client did not save
        log.info("save by rename of %s failed: %r", path, e)
        return False
    done = bool(getattr(result, "applied", False))
    return await asyncio.to_thread(_settle, path, hop, st, expected, done)


def _settle(path: Path, hop: Path, before: os.stat_result, expected: str, applied: bool) -> bool:
    """After the round trip: the mode put back, a stray hidden copy moved home, the text checked."""
    if hop.exists() and not path.exists():  # the second rename did not happen: take the first back
        os.replace(hop, path)
    try:
        if stat.S_IMODE(os.stat(path).st_mode) != stat.S_IMODE(before.st_mode):
            os.chmod(path, stat.S_IMODE(before.st_mode))
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        log.info("save by rename of %s: %r", path, e)
        return False
    ok = applied and text in (expected, expected + "\n")  # Vim ends a last line it writes ('fixeol')
    if not ok:
        log.info("save by rename of %s did not leave the edited text on disk", path)
    return ok
