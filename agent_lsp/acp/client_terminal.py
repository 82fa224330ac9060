"""bash in the editor's own terminal (`terminal/create`), with the local runner's promises.

When the client offers `terminal`, the person watches the command run in the editor
instead of reading its output afterwards. The promises of agent/tools/shell.py still
hold, and this module keeps them itself because the client only runs what it is told:
the timeout (`terminal/kill` when it passes), the output cap (a byte limit for the
client, then the same head-and-tail cut), kill-on-cancel (a cancelled turn kills and
releases the terminal before it says it is done, and ends the command's session itself
when the client runs here), and `[exit N]` at the end.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import EnvVariable

from ..agent.tools.shell import HEAD_CHARS, NON_INTERACTIVE, TAIL_CHARS, _clip
from ..agent.childproc import SECRET_VARS

log = logging.getLogger("agent_lsp.acp")

OUTPUT_BYTE_LIMIT = 8 * (HEAD_CHARS + TAIL_CHARS)

# What the client runs: the command in a session of its own, watched by a few lines of bash
# that kill that whole session as soon as any process between the client and the command
# dies or loses its parent. A client's terminal/kill may end only its direct child (Toad 0.6
# SIGKILLs the shell it started), which would leave the command's children running; that
# child may be a `sh -c` that runs another shell and waits for it (Toad runs the command
# under `$SHELL -c`, and dash does not exec), so the process the client killed is not this
# wrapper's parent but one further up; and the client may reap it late (Toad's event loop
# does it when it gets to it), so a zombie counts as dead: `kill -0` alone still finds one.
# The client is the first process above the command that is also above the agent (the
# agent's pid is the first argument); the processes below it are watched. When there is no
# such process (another pid namespace), only the process the client started is watched.
# This way a kill, a timeout or a cancel ends the whole tree whichever process the client
# kills. It runs the launch line it is given (`bash -c command`, or the sandboxed one) as
# "$@". stdin is empty, as for the local runner. Without setsid it runs that line directly.
# The session's leader is named agent-lsp-command-<tag>, so the agent can end the session
# itself (kill_session) when the client's kill does not.
TREE_WRAPPER = r"""agent=$1 tag=$2; shift 2
command -v setsid >/dev/null || exec "$@"
setsid /bin/bash -c '
pid=$1 agent=$2; shift 2
ps1() { local s; read -r s 2>/dev/null < /proc/$1/stat || return 1; s=${s##*) }; st=${s%% *}; s=${s#* }; pp=${s%% *}; }
above=" "; q=$agent
while [ "$q" -gt 1 ] 2>/dev/null && ps1 "$q"; do above="$above$q "; q=$pp; done
watch= q=$pid found=
while ps1 "$q"; do
  watch="$watch $q:$pp"
  case $above in *" $pp "*) found=1; break;; esac
  [ "$pp" -gt 1 ] 2>/dev/null || break
  q=$pp
done
if [ -z "$found" ]; then if ps1 "$pid"; then watch="$pid:$pp"; else watch="$pid:gone"; fi; fi
alive() {
  local w
  for w in $watch; do
    ps1 "${w%%:*}" || return 1
    case $st in Z|X) return 1;; esac
    [ "$pp" = "${w#*:}" ] || return 1
  done
}
"$@" </dev/null & c=$!
while kill -0 "$c" 2>/dev/null; do
  alive || { kill -KILL 0; exit 137; }
  sleep 0.1
done
wait "$c"' "agent-lsp-command-$tag" "$$" "$agent" "$@" & wait "$!" 2>/dev/null
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
    tag = secrets.token_hex(8)
    creating = asyncio.ensure_future(conn.create_terminal(
        session_id=session_id, command="/bin/bash",
        args=["-c", TREE_WRAPPER, "agent-lsp", str(os.getpid()), tag, program, *args],
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
            kill_session(tag)
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
            kill_session(tag)
            await conn.kill_terminal(session_id=session_id, terminal_id=tid)
            exit_status = None
        output = await conn.terminal_output(session_id=session_id, terminal_id=tid)
    except asyncio.CancelledError:
        kill_session(tag)
        await _bounded(_kill_and_release(conn, session_id, tid))
        raise
    except Exception as e:  # the client broke off mid-command: say so, and make sure it stops
        kill_session(tag)
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


def kill_session(tag: str) -> bool:
    """End the wrapper's session from here, when the client runs on this machine.

    terminal/kill is the client's to carry out, and a client may kill less than the tree
    (or nothing); a cancel or a timeout must end the command whatever the client does.
    The session's leader is found by its name; a client elsewhere leaves nothing to find.
    """
    name = f"agent-lsp-command-{tag}".encode()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return False
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if name not in f.read().split(b"\0"):
                    continue
            if os.getpgid(pid) != pid:  # no longer the leader of its own group
                continue
            os.killpg(pid, signal.SIGKILL)
            return True
        except OSError:  # gone meanwhile, or not ours to kill
            continue
    return False


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
