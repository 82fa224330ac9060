"""Nothing shares a read with an answer: for lsp-mode, which drops the rest of that read.

lsp-mode 8 waits for the answer to a synchronous request (executeCommand, codeAction,
shutdown) by reading the server's output; when the answer arrives its callback throws
out of the process filter, and every other message that came in the same read is lost.
In about half the runs the `workspace/applyEdit` or `window/workDoneProgress/create`
the server sent right after an answer vanished, and the task waited for ever.

So after writing a response the server holds everything else until the client has read
the response, i.e. until the pipe to it is empty again (FIONREAD on stdout): what comes
next can only arrive in a later read, handled by a later call of the filter. Order is
kept; a client that reads nothing for `LIMIT` seconds gets the held messages anyway. On
a transport that is not a pipe (TCP) the gate waits a fixed `SOCKET_PAUSE` instead.
"""

from __future__ import annotations

import array
import asyncio
import fcntl
import logging
import os
import stat
import termios
from collections import deque
from typing import Any

log = logging.getLogger("agent_lsp.server")

POLL = 0.001  # seconds between looks at the pipe
LIMIT = 2.0  # the longest a response holds back what follows it
SOCKET_PAUSE = 0.05


def is_response(data: Any) -> bool:
    """A JSON-RPC response (result or error) as pygls hands it to `_send_data`."""
    if isinstance(data, dict):
        return "id" in data and "method" not in data
    return getattr(data, "method", None) is None and hasattr(data, "id")


def unread_bytes(fd: int) -> int | None:
    """Bytes written to pipe `fd` that the reader has not read yet; None when it cannot be told."""
    buf = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, buf, True)
    except OSError:
        return None
    return buf[0]


def stdout_is_pipe(fd: int = 1) -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


class ReadGate:
    """Wraps the protocol's one write path (`_send_data`); see the module doc."""

    def __init__(self, protocol: Any, fd: int | None = 1) -> None:
        self.protocol = protocol
        self.send = protocol._send_data
        self.fd = fd if fd is not None and stdout_is_pipe(fd) else None
        self.held: deque[Any] = deque()
        self.since: float | None = None  # when the response now being read was written
        self.loop: asyncio.AbstractEventLoop | None = None
        self.longest = 0.0  # the longest hold so far (seconds), for the log and tests

    def install(self) -> None:
        self.protocol._send_data = self.submit

    def submit(self, data: Any) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # from another thread: queue it on the loop's own thread
            if self.loop is None:
                self.send(data)
            else:
                self.loop.call_soon_threadsafe(self.submit, data)
            return
        self.loop = loop
        if self.since is not None or self.held:
            self.held.append(data)
            return
        self._write(data)

    def _write(self, data: Any) -> None:
        self.send(data)
        if is_response(data) and self.loop is not None:
            self.since = self.loop.time()
            self.loop.call_later(POLL if self.fd is not None else SOCKET_PAUSE, self._check)

    def _drained(self) -> bool:
        assert self.loop is not None and self.since is not None
        if self.loop.time() - self.since >= LIMIT:
            log.info("the client read nothing for %.1f s after a response; sending on", LIMIT)
            return True
        if self.fd is None:
            return True  # SOCKET_PAUSE has passed
        left = unread_bytes(self.fd)
        return left is None or left == 0

    def _check(self) -> None:
        assert self.loop is not None
        if not self._drained():
            self.loop.call_later(POLL, self._check)
            return
        if self.since is not None:
            self.longest = max(self.longest, self.loop.time() - self.since)
        self.since = None
        while self.held and self.since is None:
            self._write(self.held.popleft())
