"""bash: the one tool that replaces all the others we did not write.

The command runs in its own session (process group) so that a timeout or a cancel
kills everything it started, background jobs included: `sleep 600 & echo started;
sleep 600` must come back at the timeout and leave nothing behind. stdin is
/dev/null and the environment says non-interactive, because nobody can answer a
pager or a password prompt. Output is read as it comes, so what was printed before
a timeout still reaches the model, and `[exit N]` is always appended: a quiet
failure must not look like success.

The command runs inside the OS sandbox the settings choose (agent/sandbox/): the argv
is bubblewrap's around `bash -c`, still in this process group (bubblewrap stays in it
and `--die-with-parent` ends the sandbox with it). When the sandbox stopped something,
one line before `[exit N]` says so and names the setting that would allow it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

from ..context import ToolContext
from ..childproc import SECRET_VARS, child_options
from ..registry import tool
from ..sandbox import Wrapped, wrap
from ..sandbox.choices import from_settings

HEAD_CHARS = 4_000
TAIL_CHARS = 14_000
DRAIN_AFTER_EXIT = 0.3  # seconds to collect output left by children after the shell exits

NON_INTERACTIVE = {
    "CI": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
    "PYTHONUNBUFFERED": "1",
}


def command_env() -> dict[str, str]:
    """The parent's environment, minus the model's key, plus the non-interactive flags.

    A server run from the VS Code extension's bundled libs has them on PYTHONPATH (named
    by AGENT_LSP_BUNDLED_LIBS); the person's commands must not import those copies."""
    env = {k: v for k, v in os.environ.items() if k not in SECRET_VARS}
    bundled = env.pop("AGENT_LSP_BUNDLED_LIBS", "")
    if bundled and "PYTHONPATH" in env:
        rest = [p for p in env["PYTHONPATH"].split(os.pathsep) if p and p != bundled]
        if rest:
            env["PYTHONPATH"] = os.pathsep.join(rest)
        else:
            del env["PYTHONPATH"]
    env.update(NON_INTERACTIVE)
    return env


def sandboxed(ctx: ToolContext, command: str) -> Wrapped:
    """The command as it will run: in the sandbox the settings ask for, with a scrubbed environment."""
    return wrap(command, ctx.workspace.root, from_settings(ctx.settings), ctx.workspace.roots, command_env(),
                secret_values=[ctx.settings.api_key])


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_spawned(spawn: "asyncio.Future[asyncio.subprocess.Process]") -> None:
    if not spawn.cancelled() and spawn.exception() is None:
        _kill_group(spawn.result().pid)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Return once the shell itself has exited.

    `proc.wait()` also waits for the output pipe to close, which a background child
    (`server &`) holds open: waiting on it alone would make every such command run
    into the timeout.
    """
    waiter = asyncio.ensure_future(proc.wait())
    delay = 0.005
    try:
        while proc.returncode is None and not waiter.done():
            await asyncio.wait({waiter}, timeout=delay)
            delay = min(delay * 2, 0.05)
    finally:
        waiter.cancel()


def _clip(text: str) -> str:
    """Keep the head and the tail: a test run's verdict is at the end."""
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    cut = len(text) - HEAD_CHARS - TAIL_CHARS
    return f"{text[:HEAD_CHARS]}\n...[{cut} chars of output cut]...\n{text[-TAIL_CHARS:]}"


@tool(
    "Run a shell command (bash) in the workspace root and return its output and exit code. "
    "Non-interactive: stdin is empty; commands that wait for input or run forever are killed at the timeout.",
    gated=True,
    command="the shell command to run",
)
async def bash(ctx: ToolContext, command: str) -> str:
    timeout = ctx.settings.command_timeout
    run = await asyncio.to_thread(sandboxed, ctx, command)  # stats, and the sandbox's one-time probe
    routed = await ctx.host.run_command(command, ctx.workspace.root, timeout, run)
    if routed is not None:  # the editor ran it in its own terminal
        return _with_note(routed, run)
    spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
        *run.argv,
        cwd=ctx.workspace.root,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=run.env,
        start_new_session=True,
        **child_options(),
    ))
    try:
        proc = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        # Cancelled while the process was starting: it may already run (and start others),
        # so let the start finish and take its whole group down then.
        spawn.add_done_callback(_kill_spawned)
        raise
    chunks: list[bytes] = []
    size = 0

    async def pump() -> None:
        nonlocal size
        assert proc.stdout is not None
        while True:
            data = await proc.stdout.read(65536)
            if not data:
                return
            size += len(data)
            chunks.append(data)
            if size > 8 * (HEAD_CHARS + TAIL_CHARS):  # keep memory bounded: head + tail
                head = b"".join(chunks)
                chunks[:] = [head[: HEAD_CHARS * 2], b"\n...\n", head[-TAIL_CHARS * 2 :]]
                size = sum(len(c) for c in chunks)

    reader = asyncio.create_task(pump())
    started = time.monotonic()
    timed_out = False
    try:
        try:
            await asyncio.wait_for(_exited(proc), timeout)
        except TimeoutError:
            timed_out = True
        if not timed_out:
            # The shell is gone; children that kept the pipe open get a moment, then go too.
            left = max(0.0, timeout - (time.monotonic() - started))
            await asyncio.wait({reader}, timeout=min(DRAIN_AFTER_EXIT, left))
    except BaseException:  # cancelled: take the whole group down before saying so
        _kill_group(proc.pid)
        reader.cancel()
        raise
    finally:
        _kill_group(proc.pid)
    try:
        await asyncio.wait_for(reader, 2)
    except (TimeoutError, asyncio.CancelledError):
        reader.cancel()
    if proc.returncode is None:
        await _exited(proc)
    out = _clip(b"".join(chunks).decode("utf-8", "replace"))
    if out and not out.endswith("\n"):
        out += "\n"
    note = run.note(out)
    if note:
        out += note + "\n"
    if timed_out:
        return f"{out}[timed out after {timeout:g}s; the command and everything it started were killed]\n[exit {proc.returncode}]"
    return f"{out}[exit {proc.returncode}]"


def _with_note(result: str, run: Wrapped) -> str:
    """An editor terminal's result (output, then `[exit N]`) with the sandbox's line before the exit."""
    note = run.note(result)
    if not note:
        return result
    head, sep, tail = result.rpartition("\n[exit ")
    return f"{head}\n{note}{sep}{tail}" if sep else f"{result}\n{note}"
