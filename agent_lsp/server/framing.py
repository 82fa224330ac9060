"""Reading LSP frames so that one broken frame costs one message, not the session.

pygls reads a header line with an exact `Content-Length: N\\r\\n` match. A frame with
no Content-Length (or one spelled `content-length:`, or ended by a bare `\\n`) leaves
its body unread, and from then on every body is glued to the next frame's header
line, so no later message is ever recognised: the editor waits for ever. Reading the
header lines through `ResyncReader` finds the next Content-Length wherever it is on
its line and spells it the way pygls matches, so the stream is back in step at the
next frame. Bodies are read as before (`readexactly`), never through here.
Used for stdio (what editors start); `--tcp`/`--ws` are for debugging and read as pygls does.
"""

from __future__ import annotations

import re
from typing import Awaitable, Protocol

_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?\n?$", re.IGNORECASE)


class LineReader(Protocol):
    def readline(self) -> Awaitable[bytes]: ...
    def readexactly(self, n: int) -> Awaitable[bytes]: ...


class ResyncReader:
    """Wraps pygls' reader: header lines come out in the one spelling pygls matches."""

    def __init__(self, inner: LineReader) -> None:
        self.inner = inner

    async def readline(self) -> bytes:
        line = await self.inner.readline()
        if not line:
            return line  # end of input
        found = _LENGTH.search(line)
        if found is not None:
            return b"Content-Length: " + found.group(1) + b"\r\n"
        if not line.strip():
            return b"\r\n"  # the blank line that ends the headers, however it was ended
        return line

    def readexactly(self, n: int) -> Awaitable[bytes]:
        return self.inner.readexactly(n)

