"""Cancel by each of the three routes, during a long command and during a stalled model reply.

Each route must end the task within a second or two with status "cancelled", kill the
command's whole process group (or abort the model request), keep the history valid
(the scripted model validates tool-call pairing on the next request) and leave the
session usable for the next task.
"""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import processes, progress_end, progress_tokens, send_command, wait_until
from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call

ROUTES = ["progress", "cancelRequest", "command"]
CANCEL_WITHIN = 2.0


async def _cancel(editor, route: str, msg_id: str) -> None:
    if route == "progress":
        (token,) = await wait_until(lambda: progress_tokens(editor), what="a progress token")
        editor.client.protocol.notify(
            types.WINDOW_WORK_DONE_PROGRESS_CANCEL, types.WorkDoneProgressCancelParams(token=token)
        )
    elif route == "cancelRequest":
        editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    else:
        result = await execute(editor, "agentLsp.cancel", timeout=5)
        assert result["cancelled"] is True


async def _outcome(editor, route: str, fut: asyncio.Future) -> str:
    """The status the person sees: the command's result, or (cancelRequest) the progress end."""
    if route == "cancelRequest":
        with pytest.raises(JsonRpcException) as err:
            await asyncio.wait_for(fut, CANCEL_WITHIN)
        assert err.value.code == -32800, err.value  # RequestCancelled
        (token,) = progress_tokens(editor)
        end = await wait_until(lambda: progress_end(editor, token), CANCEL_WITHIN, "the progress end")
        assert end.message.startswith("cancelled"), end.message
        return "cancelled"
    result = await asyncio.wait_for(fut, CANCEL_WITHIN)
    return result["status"]


async def _next_task_works(editor, model) -> None:
    model.add(reply("still here"))
    result = await execute(editor, "agentLsp.runTask", {"task": "are you there?"}, timeout=10)
    assert result == {"status": "done", "answer": "still here", "steps": 1}
    assert model.violations == []


@pytest.mark.parametrize("route", ROUTES)
async def test_cancel_long_command(route, launch, model, workspace):
    editor = await launch(init_options={"commandTimeout": 30})
    seconds = f"{60 + random.random():.6f}"  # unique: pgrep finds this command's processes only
    command = f"sleep {seconds}; echo finished"
    model.add(tool_call("bash", {"command": command}))

    msg_id, fut = send_command(editor, "agentLsp.runTask", {"task": "run the slow thing"})
    await wait_until(lambda: processes(f"sleep {seconds}"), what="the command to start")
    started = time.monotonic()
    await _cancel(editor, route, msg_id)
    status = await _outcome(editor, route, fut)
    assert status == "cancelled"
    assert time.monotonic() - started < CANCEL_WITHIN
    await wait_until(lambda: not processes(f"sleep {seconds}"), 1.0, "the process group to be killed")

    await _next_task_works(editor, model)
    # The history the model saw on the next request answers the bash call as cancelled.
    tool_msgs = [m for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 1 and "cancelled" in tool_msgs[0]["content"]
    assert not (workspace / "finished").exists()


@pytest.mark.parametrize("route", ROUTES)
async def test_cancel_stalled_model(route, launch, model):
    editor = await launch()
    model.add(reply("this answer never arrives in time", stall=60))

    msg_id, fut = send_command(editor, "agentLsp.runTask", {"task": "think hard"})
    await wait_until(lambda: model.requests, what="the model request")
    started = time.monotonic()
    await _cancel(editor, route, msg_id)
    assert await _outcome(editor, route, fut) == "cancelled"
    assert time.monotonic() - started < CANCEL_WITHIN
    # the model request was aborted: the scripted server saw the client hang up
    assert await asyncio.to_thread(model.wait_for_disconnect, 2.0)

    await _next_task_works(editor, model)
    roles = [m["role"] for m in model.requests[-1]["messages"]]
    assert roles == ["system", "user", "user"]  # the cancelled request stays; no half reply stored
