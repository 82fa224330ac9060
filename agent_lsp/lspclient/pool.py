"""The `diagnosticServers` a session runs: which server sees which file, started lazily, restarted once.

The setting maps a glob to a command line, `{"*.py": ["ruff", "server"]}`, or to a list
of them, `{"*.py": [["ruff", "server"], ["pyright-langserver", "--stdio"]]}`. A glob
without a slash matches the file name, one with a slash the path from the workspace
root. Each (workspace, glob, command) gets one server, started on its first file. A
server that will not start, or dies a second time, is left alone for the rest of the
session; each failure costs one log line and one note for the model, never the edit.
"""

from __future__ import annotations

import asyncio
import fnmatch
import logging
import shlex
from pathlib import Path
from typing import Any, Callable

from .connection import Connection, ServerGone

log = logging.getLogger("agent_lsp.lspclient")

Key = tuple[Path, str, tuple[str, ...]]


def command_of(value: Any) -> list[str] | None:
    """A command line from the setting: a list of strings, or one string split like a shell would."""
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError:
            return None
    if isinstance(value, (list, tuple)) and value and all(isinstance(x, str) and x for x in value):
        return list(value)
    return None


def matches(glob: str, root: Path, path: Path) -> bool:
    if "/" not in glob:
        return fnmatch.fnmatchcase(path.name, glob)
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        return False
    return fnmatch.fnmatchcase(rel, glob.lstrip("/")) or fnmatch.fnmatchcase(rel, glob.replace("**/", ""))


class _Slot:
    """One configured server for one workspace: its connection (or why it has none)."""

    def __init__(self, key: Key) -> None:
        self.key = key
        self.conn: Connection | None = None
        self.starting: asyncio.Task[Connection] | None = None
        self.starts = 0
        self.failed: str | None = None


class ServerPool:
    def __init__(self, setting: Callable[[], dict[str, Any]], note: Callable[[str], None]) -> None:
        self.setting = setting  # read each time: the settings may change between tasks
        self.note = note
        self.slots: dict[Key, _Slot] = {}
        self._warned: set[str] = set()

    def _keys(self, root: Path, path: Path) -> list[Key]:
        keys = []
        for glob, value in (self.setting() or {}).items():
            if not isinstance(glob, str) or not matches(glob, root, path):
                continue
            several = isinstance(value, list) and value and all(isinstance(v, (list, str)) for v in value) \
                and any(isinstance(v, list) for v in value)
            for one in (value if several else [value]):
                cmd = command_of(one)
                if cmd is None:
                    if glob not in self._warned:
                        self._warned.add(glob)
                        log.warning("ignored diagnosticServers[%r]: a command is a list of strings (or a list of those)", glob)
                    continue
                keys.append((root, glob, tuple(cmd)))
        return keys

    def warm(self, root: Path, path: Path) -> None:
        """Start the servers for `path` now, in the background, so its first edit need not wait for them."""
        for key in self._keys(root, path):
            slot = self.slots.setdefault(key, _Slot(key))
            if slot.failed is None and slot.starting is None:
                task = self._connection(slot)
                task.add_done_callback(lambda t: t.cancelled() or t.exception())  # seen here; _ask reports it

    def handles(self, root: Path, path: Path) -> bool:
        return any(self.slots.get(k) is None or self.slots[k].failed is None for k in self._keys(root, path))

    async def diagnostics(self, root: Path, path: Path, text: str | None, budget: float) -> list[dict[str, Any]] | None:
        """Every matching server's problems for `text`, each bounded by `budget`; None when none answered."""
        if text is None:
            return None
        keys = self._keys(root, path)
        answers = await asyncio.gather(*(self._ask(self.slots.setdefault(k, _Slot(k)), path, text, budget) for k in keys))
        got = [a for a in answers if a is not None]
        return [d for a in got for d in a] if got else None

    async def _ask(self, slot: _Slot, path: Path, text: str, budget: float) -> list[dict[str, Any]] | None:
        if slot.failed is not None:
            return None
        try:
            conn = await asyncio.wait_for(asyncio.shield(self._connection(slot)), budget)
            return await asyncio.wait_for(conn.diagnostics(path, text), budget)
        except TimeoutError:
            return None  # slow, not broken: the next edit asks again
        except ServerGone as e:
            self._lost(slot, str(e))
            if slot.failed is None:  # restarted: ask the new one once
                return await self._ask(slot, path, text, budget)
            return None
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a protocol error from the server is no answer, not a failed edit
            log.info("diagnostic server %s: %r", slot.key[2][0], e)
            return None

    def _connection(self, slot: _Slot) -> asyncio.Task[Connection]:
        """The slot's start task: done (its connection, or why it failed) or under way, shared by all askers."""
        if slot.starting is None:
            slot.starts += 1
            slot.starting = asyncio.ensure_future(self._start(slot))
        return slot.starting

    async def _start(self, slot: _Slot) -> Connection:
        root, _, cmd = slot.key
        conn = Connection(list(cmd), root)
        await conn.start()
        slot.conn = conn
        return conn

    def _lost(self, slot: _Slot, why: str) -> None:
        """A server failed: restart it once if it had been running, else give up on it (one line each)."""
        root, glob, cmd = slot.key
        was_running = slot.conn is not None
        slot.conn, slot.starting = None, None
        name = " ".join(cmd)
        if was_running and slot.starts < 2:
            log.warning("diagnostic server %r for %s died (%s); restarting it once", name, glob, why)
            return
        slot.failed = why
        what = "died again" if was_running else "could not start"
        log.warning("diagnostic server %r for %s %s: %s", name, glob, what, why)
        self.note(f"the diagnostic server for {glob} ({name}) {what}: {why}; its problems are not reported")

    async def aclose(self) -> None:
        conns = [s.conn for s in self.slots.values() if s.conn is not None]
        for s in self.slots.values():
            if s.starting is not None and not s.starting.done():
                s.starting.cancel()
        self.slots.clear()
        await asyncio.gather(*(c.aclose() for c in conns), return_exceptions=True)
