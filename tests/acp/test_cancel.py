"""session/cancel: the turn ends within a second, the process tree is gone, the history stays valid."""

from __future__ import annotations

import asyncio
import os
import random
import shlex
import subprocess
import time

from acp.helpers import text_block

from tests.acp.client import EditorClient, settle
from tests.helpers import assert_paired, no_violations, pgrep  # noqa: F401  (autouse fixture)
from tests.lsp.conftest import wait_until
from tests.scripted_model import reply, tool_call


def _sleeper() -> tuple[str, str]:
    """A command that starts a background child and waits, with a marker to find both by."""
    marker = f"{300 + random.random():.6f}"
    return f"sleep {marker} & sleep {marker}; echo never", marker


async def _cancel_while_running(conn, session_id: str, marker: str, prompt: asyncio.Future) -> float:
    await wait_until(lambda: pgrep(f"sleep {marker}"), timeout=10, what="the command to start")
    t0 = time.monotonic()
    await conn.cancel(session_id=session_id)
    answer = await asyncio.wait_for(prompt, 5)
    elapsed = time.monotonic() - t0
    print(f"session/cancel -> stopReason cancelled in {elapsed * 1000:.0f} ms")
    assert answer.stop_reason == "cancelled"
    return elapsed


async def test_cancel_during_a_command_kills_the_tree(start, workspace, model):
    command, marker = _sleeper()
    model.add(tool_call("bash", {"command": command}), reply("still here"))
    client = EditorClient(default_answer="allow_once")
    conn, proc = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("wait")]))
    elapsed = await _cancel_while_running(conn, session.session_id, marker, prompt)
    assert elapsed < 1.0, f"cancel took {elapsed:.2f}s"
    assert await wait_until(lambda: not pgrep(f"sleep {marker}"), timeout=2, what="the process tree to go")
    await settle()
    (c,) = client.calls().values()
    assert c["updates"][-1].status == "failed"  # answered "cancelled" to the model and the client

    # the next prompt goes on with a valid history (the scripted model checks the pairing)
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("and now?")])
    assert answer.stop_reason == "end_turn" and proc.returncode is None
    assert_paired(model.requests[-1]["messages"])
    assert "cancelled by the user" in model.requests[-1]["messages"][-2]["content"]


async def test_cancel_during_a_client_terminal_command(start, workspace, model):
    command, marker = _sleeper()
    model.add(tool_call("bash", {"command": command}), reply("still here"))
    client = EditorClient(terminal=True)
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("wait")]))
    elapsed = await _cancel_while_running(conn, session.session_id, marker, prompt)
    assert elapsed < 1.0, f"cancel took {elapsed:.2f}s"
    assert "kill" in client.terminal_calls and "release" in client.terminal_calls
    assert await wait_until(lambda: not pgrep(f"sleep {marker}"), timeout=2, what="the process tree to go")
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("and now?")])
    assert answer.stop_reason == "end_turn"
    assert_paired(model.requests[-1]["messages"])


async def test_cancel_while_a_permission_is_pending(start, workspace, model):
    model.add(tool_call("bash", {"command": "touch never-made"}), reply("after"))
    client = EditorClient(hold_permission=True)
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("go")]))
    await wait_until(lambda: client.permissions, timeout=10, what="the permission request")
    t0 = time.monotonic()
    await conn.cancel(session_id=session.session_id)
    answer = await asyncio.wait_for(prompt, 5)
    assert answer.stop_reason == "cancelled" and time.monotonic() - t0 < 1.0
    assert not (workspace / "never-made").exists()
    client.hold_permission = False
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("again")])
    assert answer.stop_reason == "end_turn"


async def test_cancel_during_the_model_request(start, workspace, model):
    model.add(reply("slow answer", delay=30), reply("fast"))
    client = EditorClient()
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("go")]))
    await wait_until(lambda: model.requests, timeout=10, what="the model request")
    t0 = time.monotonic()
    await conn.cancel(session_id=session.session_id)
    answer = await asyncio.wait_for(prompt, 5)
    assert answer.stop_reason == "cancelled" and time.monotonic() - t0 < 1.0
    assert model.wait_for_disconnect(3), "the model request was not aborted"


async def test_cancel_ends_the_command_when_the_client_kill_ends_nothing(start, workspace, model):
    """A client may take terminal/kill and release and end nothing: the command still ends."""
    command, marker = _sleeper()
    model.add(tool_call("bash", {"command": command}), reply("still here"))
    client = EditorClient(terminal=True, terminal_kill="nothing")
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("wait")]))
    elapsed = await _cancel_while_running(conn, session.session_id, marker, prompt)
    assert elapsed < 1.0, f"cancel took {elapsed:.2f}s"
    assert await wait_until(lambda: not pgrep(f"sleep {marker}"), timeout=2, what="the process tree to go")
    (term,) = client.terminals.values()
    await asyncio.wait_for(term.proc.wait(), 2)  # what the client started ended with it
    assert "kill" in client.terminal_calls and "release" in client.terminal_calls


async def test_timeout_ends_the_command_when_the_client_kill_ends_nothing(start, workspace, model):
    command, marker = _sleeper()
    model.add(tool_call("bash", {"command": command}), reply("done"))
    client = EditorClient(terminal=True, terminal_kill="nothing")
    conn, _ = await start(client, "--timeout", "1")
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    answer = await asyncio.wait_for(conn.prompt(session_id=session.session_id, prompt=[text_block("wait")]), 20)
    assert answer.stop_reason == "end_turn"
    result = [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert result.startswith("[timed out after 1s; the command was killed]"), result
    assert "Killed" not in result and "never" not in result  # no shell's job notice, no rest of the command
    assert await wait_until(lambda: not pgrep(f"sleep {marker}"), timeout=2, what="the process tree to go")


def _wrapped(marker: str) -> list[str]:
    """The line the agent gives the client for `sleep marker & sleep marker`, as the agent (this process) would."""
    from agent_lsp.acp.client_terminal import TREE_WRAPPER

    return ["/bin/bash", "-c", TREE_WRAPPER, "agent-lsp", str(os.getpid()), "testtag",
            "/bin/bash", "-c", f"sleep {marker} & sleep {marker}"]


def _outlives_the_kill(marker: str, args: list[str] | str, shell: bool = False) -> bool:
    """Start what the client would start, kill it once the command runs (no wait(): it stays
    a zombie, as in a client that reaps late), and say whether the command still runs 3 s on."""
    proc = subprocess.Popen(args, shell=shell, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not pgrep(f"^sleep {marker}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pgrep(f"^sleep {marker}"), "the command never started"
        proc.kill()
        deadline = time.monotonic() + 3
        while pgrep(f"^sleep {marker}") and time.monotonic() < deadline:
            time.sleep(0.05)
        return bool(pgrep(f"^sleep {marker}"))
    finally:
        proc.wait()
        subprocess.run(["pkill", "-KILL", "-f", f"sleep {marker}"])


def test_tree_ends_when_the_client_kills_but_does_not_reap_its_child():
    """Toad kills only the process it started and reaps it when its event loop gets to it:
    until then that process is a zombie, which `kill -0` still finds. The command's tree
    must end on the kill, not on the reaping."""
    _, marker = _sleeper()
    assert not _outlives_the_kill(marker, _wrapped(marker)), "the command outlived the process the client killed"


def test_tree_ends_when_the_client_kills_a_shell_above_it():
    """Toad runs the command line under `$SHELL -c` from its own `sh -c`; dash does not exec
    the command it is given, so what Toad kills is two shells above the wrapper, and the
    wrapper's own parent lives on."""
    _, marker = _sleeper()
    line = "sh -c " + shlex.quote(shlex.join(_wrapped(marker)))
    assert not _outlives_the_kill(marker, line, shell=True), "the command outlived the shell the client killed"
