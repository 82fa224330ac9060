"""bash in the editor's own terminal (`terminal/create`), with the local runner's promises.

When the client offers `terminal`, the person watches the command run in the editor
instead of reading its output afterwards. The promises of agent/tools/shell.py still
hold, and this module keeps them itself because the client only runs what it is told:
the timeout (`terminal/kill` when it passes), the output cap (a byte limit for the
client, then the same head-and-tail cut), kill-on-cancel (a cancelled turn kills and
releases the terminal before it says it is done), and `[exit N]` at the end.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import EnvVariable

from ..agent.tools.shell import HEAD_CHARS, NON_INTERACTIVE, TAIL_CHARS, _clip
from ..agent.childproc import SECRET_VARS

log = logging.getLogger("agent_lsp.acp")

OUTPUT_BYTE_LIMIT = 8 * (HEAD_CHARS + TAIL_CHARS)

# What the client runs: the command in a session of its own, watched by a few lines of bash
# that kill that whole session as soon as the process the client started dies or loses its
# parent. A client's terminal/kill may end only its direct child (Toad 0.6 SIGKILLs the shell
# it started, in its own process group), which would leave the command's children running;
# and it may reap that child late (Toad's event loop does it when it gets to it), so a
# zombie counts as dead: `kill -0` alone still finds one.
# this way a kill, a timeout or a cancel ends the whole tree whichever process the client
# kills. It runs the launch line it is given (`bash -c command`, or the sandboxed one) as
# "$@". stdin is empty, as for the local runner. Without setsid it runs that line directly;
# without /proc (not Linux) it watches only that the process lives.
TREE_WRAPPER = r"""command -v setsid >/dev/null || exec "$@"
setsid /bin/bash -c '
pid=$1; shift
read -r _ _ _ p0 _ 2>/dev/null < /proc/$pid/stat
"$@" </dev/null & c=$!
while kill -0 "$c" 2>/dev/null; do
  s=; p=gone; read -r _ _ s p _ 2>/dev/null < /proc/$pid/stat
  if ! kill -0 "$pid" 2>/dev/null || [ "$s" = Z ] || [ "$s" = X ] || { [ -n "$p0" ] && [ "$p" != "$p0" ]; }; then
    kill -KILL 0; exit 137
  fi
  sleep 0.1
done
wait "$c"' agent-lsp-command "$$" "$@" & wait "$!"
"""
CLEANUP_SECONDS = 1.0  # how long a cancelled command waits for the client to kill its terminal


def command_env() -> list[EnvVariable]:
    """The non-interactive flags, and the model's key blanked in case the client has it."""
    env = dict(NON_INTERACTIVE)
    env.update({name: "" for name in SECRET_VARS})
    return [EnvVariable(name=k, value=v) for k, v in env.items()]


async def run_in_terminal(conn: Any, session_id: str, command: str, cwd: Path, timeout: float,
                          on_terminal: Any = None, launch: tuple[str, list[str]] | None = None) -> str | None:
    """Run `command` in a client terminal; None if the client would not create one.

    `launch` is the (program, args) to give the client instead of `bash -c command`: the
    sandboxed command line (agent/sandbox/), which carries its own environment, so the
    client's environment (merged under ours) cannot add a token to it.
    """
    program, args = launch or ("/bin/bash", ["-c", command])
    creating = asyncio.ensure_future(conn.create_terminal(
        session_id=session_id, command="/bin/bash", args=["-c", TREE_WRAPPER, "agent-lsp", program, *args],
        cwd=str(cwd),
        env=command_env(), output_byte_limit=OUTPUT_BYTE_LIMIT,
    ))
    try:
        created = await asyncio.shield(creating)
    except asyncio.CancelledError:
        # Cancelled while the client was starting it: the command may already run, so
        # wait for its id (briefly) and kill it then.
        async def kill_when_created() -> None:
            try:
                made = await creating
            except Exception:  # it never started
                return
            await _kill_and_release(conn, session_id, made.terminal_id)

        await _bounded(kill_when_created())
        raise
    except Exception as e:  # the client failed to start it: the local runner takes over
        log.info("terminal/create failed (%s); running the command locally", e)
        return None
    tid = created.terminal_id
    if on_terminal is not None:
        on_terminal(helpers.tool_terminal_ref(tid))
    timed_out = False
    try:
        try:
            exit_status = await asyncio.wait_for(
                conn.wait_for_terminal_exit(session_id=session_id, terminal_id=tid), timeout)
        except TimeoutError:
            timed_out = True
            await conn.kill_terminal(session_id=session_id, terminal_id=tid)
            exit_status = None
        output = await conn.terminal_output(session_id=session_id, terminal_id=tid)
    except asyncio.CancelledError:
        await _bounded(_kill_and_release(conn, session_id, tid))
        raise
    except Exception as e:  # the client broke off mid-command: say so, and make sure it stops
        await _kill_and_release(conn, session_id, tid)
        return f"error: the editor's terminal failed while running the command: {e}"
    await _release(conn, session_id, tid)
    code: Any = None
    status = output.exit_status or exit_status
    if status is not None:
        code = status.exit_code if status.exit_code is not None else (status.signal or None)
    text = output.output
    if output.truncated:
        text = "...[the start of the output was cut]...\n" + text
    text = _clip(text)
    if text and not text.endswith("\n"):
        text += "\n"
    if timed_out:
        return f"{text}[timed out after {timeout:g}s; the command was killed]\n[exit {code if code is not None else 'killed'}]"
    return f"{text}[exit {code if code is not None else 'unknown'}]"


async def _bounded(cleanup: Any) -> None:
    """Run a cancelled command's cleanup to its end in the background, waiting for it at most
    CLEANUP_SECONDS (the turn must end within a second, the kill must still be sent)."""
    task = asyncio.ensure_future(cleanup)
    try:
        await asyncio.wait({task}, timeout=CLEANUP_SECONDS)
    except asyncio.CancelledError:
        pass


async def _release(conn: Any, session_id: str, tid: str) -> None:
    try:
        await conn.release_terminal(session_id=session_id, terminal_id=tid)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        log.info("terminal/release failed: %s", e)


async def _kill_and_release(conn: Any, session_id: str, tid: str) -> None:
    try:
        await conn.kill_terminal(session_id=session_id, terminal_id=tid)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        log.info("terminal/kill failed: %s", e)
    await _release(conn, session_id, tid)
