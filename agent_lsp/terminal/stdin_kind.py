"""Can a question be answered on stdin? Only on a terminal or a pipe (or a socket).

`agent-lsp run < /dev/null` (CI, scripts, editors' task runners) has nobody to ask:
/dev/null and regular files cannot be watched by the event loop (epoll refuses them
with PermissionError), and a closed stdin has no file at all. Such a question is
answered No at once with one line saying why, instead of a traceback.
"""

from __future__ import annotations

import os
import stat
import sys


def unanswerable_reason(fd: int | None = None) -> str | None:
    """None when stdin can answer; else why not, for a one-line note."""
    try:
        fd = sys.stdin.fileno() if fd is None else fd
    except (AttributeError, ValueError, OSError):
        return "stdin is closed"
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return "stdin is closed"
    if os.isatty(fd) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return None
    if stat.S_ISCHR(mode):
        return "stdin is not a terminal (it is a device such as /dev/null)"
    if stat.S_ISREG(mode):
        return "stdin is a file, not a terminal or a pipe"
    return "stdin is not a terminal or a pipe"
