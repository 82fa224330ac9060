"""The agent's child processes (rg, git, the commands it runs): a lower CPU priority, no key in their environment.

On a laptop's few cores a search or a test run competes with the process that answers
the editor; at nice 10 the kernel gives that process the CPU first whenever it wants it,
and the children still get every cycle it leaves idle. `AGENT_LSP_TOOL_NICE` sets the
increment (0 turns it off); nothing changes on systems without `os.nice`.
"""

from __future__ import annotations

import os
from typing import Any

DEFAULT_NICE = 10


def tool_nice() -> int:
    try:
        return max(0, min(19, int(os.environ.get("AGENT_LSP_TOOL_NICE", DEFAULT_NICE))))
    except ValueError:
        return DEFAULT_NICE


def _lower_priority(increment: int) -> None:
    try:
        os.nice(increment)
    except OSError:  # not allowed here: run at the normal priority
        pass


def child_options() -> dict[str, Any]:
    """Extra keyword arguments for subprocess / asyncio.create_subprocess_exec.

    The nice happens in the child before exec (a preexec_fn that only makes one system
    call), so rg's worker threads, started later, inherit it too.
    """
    increment = tool_nice()
    if increment == 0 or not hasattr(os, "nice"):
        return {}
    return {"preexec_fn": lambda: _lower_priority(increment)}


# The variables that hold the model's key: no child process (a command, an MCP or language
# server) inherits them.
SECRET_VARS = ("AGENT_API_KEY", "OPENAI_API_KEY")
