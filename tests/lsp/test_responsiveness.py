"""The server never blocks: requests are answered while a tool runs; detached commands return at once.

The tools here block on a FIFO the test holds, so "answered while the tool still runs"
is a fact about ordering, not a timing threshold: the tool cannot finish before the
test lets it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import processes, progress_end, progress_tokens, tool_results, wait_until
from tests.lsp_helpers import code_actions, execute, rng
from tests.scripted_model import reply, tool_call


def release(fifo) -> None:
    with open(fifo, "w") as f:  # the tool already has it open for reading
        f.write("needle in the pipe\n")


@pytest.mark.parametrize("tool", ["grep", "bash"])
async def test_requests_are_answered_while_a_tool_runs(tool, launch, model, workspace):
    (workspace / "a.py").write_text("x = 1\n")
    fifo = workspace / "slow.pipe"
    os.mkfifo(fifo)
    marker = f"needle{uuid.uuid4().hex[:8]}|needle in"
    if tool == "grep":
        call = tool_call("grep", {"regex": marker, "path": "slow.pipe"})
    else:
        call = tool_call("bash", {"command": f"cat slow.pipe | grep -E '{marker}'"})
    editor = await launch(init_options={"commandTimeout": 30})
    uri = editor.open(workspace / "a.py")
    model.add(call, reply("found it"))
    task = asyncio.ensure_future(execute(editor, "agentLsp.runTask", {"task": "search"}))
    try:
        await wait_until(lambda: processes(marker.split("|")[0]), what=f"the {tool} process")
        for i in range(20):
            editor.type_text(uri, f"x = {i}\n")
            # a server that blocked on the tool would never answer: fail instead of hanging
            actions = await asyncio.wait_for(code_actions(editor, uri, rng(0, 0, 0, 0), []), 5)
            assert [a.title for a in actions] == ["Ask agent about line 1"]
        with pytest.raises(JsonRpcException):  # commands are answered too (this one refused: a task runs)
            await execute(editor, "agentLsp.newSession", timeout=5)
        assert not task.done() and len(model.requests) == 1  # the tool is still running
        assert processes(marker.split("|")[0])
    finally:
        await asyncio.to_thread(release, fifo)
    result = await asyncio.wait_for(task, 10)
    assert result["status"] == "done"
    assert "needle in the pipe" in tool_results(model)[0]


async def test_detached_command_returns_at_once(launch, model):
    editor = await launch(init_options={"detachCommands": True})
    gate = threading.Event()

    def answer_when_released(body):
        gate.wait(10)
        return reply("the answer")

    model.add(answer_when_released)
    try:
        result = await execute(editor, "agentLsp.runTask", {"task": "take your time"}, timeout=5)
        assert result == {"status": "started", "answer": "", "steps": 0}
        # while it runs: a second task is refused
        with pytest.raises(JsonRpcException) as err:
            await execute(editor, "agentLsp.runTask", {"task": "another"}, timeout=5)
        assert "already working" in err.value.message
        assert not any(m.message.startswith("agent:") for m in editor.client.messages)
    finally:
        gate.set()
    shown = await wait_until(
        lambda: [m for m in editor.client.messages if m.message == "agent: the answer"], what="the answer"
    )
    assert len(shown) == 1
    (token,) = progress_tokens(editor)
    assert (await wait_until(lambda: progress_end(editor, token))).message == "done in 1 step"


async def test_detached_command_can_be_cancelled(launch, model):
    editor = await launch(init_options={"detachCommands": True})
    model.add(reply("never", stall=30))
    assert (await execute(editor, "agentLsp.runTask", {"task": "slow"}))["status"] == "started"
    await wait_until(lambda: model.requests, what="the model request")
    assert await execute(editor, "agentLsp.cancel") == {"cancelled": True}
    (token,) = progress_tokens(editor)
    end = await wait_until(lambda: progress_end(editor, token), 2, "the progress end")
    assert end.message == "cancelled after 1 step"
    model.add(reply("ok"))
    assert (await execute(editor, "agentLsp.runTask", {"task": "again"}))["status"] == "started"
    await wait_until(lambda: any(m.message == "agent: ok" for m in editor.client.messages), what="the answer")
    assert model.violations == []


def _slow_unless_again(body) -> dict:
    """Stall the first task's request; answer the second's (the first may never ask)."""
    last = body["messages"][-1]["content"]
    return reply("ok") if "again" in last else reply("never", stall=30)


@pytest.mark.parametrize("when", ["at once", "progress begins", "started", "model asked"])
async def test_a_cancel_at_any_moment_of_a_detached_task_ends_it(when, launch, model):
    """lsp-mode cancels right after the "started" answer, while the first turn of a session
    is still getting ready (its sandbox notes): the cancel must end the task there too, with
    its progress ended and "agent: Cancelled." shown, never a task that ends in silence."""
    editor = await launch(init_options={"detachCommands": True})
    model.add(_slow_unless_again, _slow_unless_again)
    started = asyncio.ensure_future(execute(editor, "agentLsp.runTask", {"task": "slow"}))
    if when == "progress begins":
        await wait_until(lambda: progress_tokens(editor), what="the progress")
    elif when == "started":
        await asyncio.wait_for(asyncio.shield(started), 10)
    elif when == "model asked":
        await wait_until(lambda: model.requests, what="the model request")
    else:
        await asyncio.sleep(0)
    assert await execute(editor, "agentLsp.cancel") == {"cancelled": True}
    assert (await started)["status"] in ("started", "cancelled")
    await wait_until(lambda: any(m.message == "agent: Cancelled." for m in editor.client.messages), 5,
                     "agent: Cancelled.")
    for token in progress_tokens(editor):  # none when it stopped before its progress began
        end = await wait_until(lambda: progress_end(editor, token), 2, "the progress end")
        assert end.message.startswith("cancelled after")
    assert (await execute(editor, "agentLsp.runTask", {"task": "again"}))["status"] == "started"
    await wait_until(lambda: any(m.message == "agent: ok" for m in editor.client.messages), what="the answer")
