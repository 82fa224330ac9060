"""Killing the runner's process group still ends everything inside the sandbox, background jobs too."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from pathlib import Path

from agent_lsp.agent.sandbox import SandboxConfig, wrap
from tests.sandbox.conftest import home_env


def processes_with(marker: str) -> list[int]:
    """PIDs on the host whose command line starts with `marker` (the host process table)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cmdline.startswith(marker):
            found.append(int(entry.name))
    return found


def count_reaches(marker: str, n: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if len(processes_with(marker)) == n:
            return True
        time.sleep(0.02)
    return False


def gone(marker: str, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not processes_with(marker):
            return True
        time.sleep(0.05)
    return False


async def test_killing_the_group_ends_background_children(bwrap, ws, home):
    marker = f"1000.{random.randrange(10**6):06d}"
    w = wrap(f"sleep {marker} & sleep {marker} & echo started; sleep {marker}", ws, SandboxConfig(), [ws],
             home_env(home))
    proc = await asyncio.create_subprocess_exec(*w.argv, env=w.env, cwd=ws, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, start_new_session=True)
    assert await asyncio.wait_for(proc.stdout.readline(), 10) == b"started\n"
    assert count_reaches(f"sleep {marker}", 3), processes_with(f"sleep {marker}")
    os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()
    assert gone(f"sleep {marker}"), processes_with(f"sleep {marker}")


async def test_background_child_ends_when_the_shell_exits(bwrap, ws, home):
    # the sandbox's PID namespace ends with its first process: nothing outlives the command
    marker = f"1000.{random.randrange(10**6):06d}"
    w = wrap(f"sleep {marker} > /dev/null 2>&1 & echo started", ws, SandboxConfig(), [ws], home_env(home))
    proc = await asyncio.create_subprocess_exec(*w.argv, env=w.env, cwd=ws, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, start_new_session=True)
    assert (await proc.communicate())[0] == b"started\n"
    assert gone(f"sleep {marker}")
