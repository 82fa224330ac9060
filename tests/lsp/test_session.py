"""One task at a time, and a conversation that carries over until newSession."""

from __future__ import annotations

import asyncio

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import send_command, wait_until
from tests.lsp_helpers import execute
from tests.scripted_model import reply


async def test_a_second_task_is_refused_while_one_runs(launch, model, workspace):
    (workspace / "a.py").write_text("x = 1\n")
    editor = await launch()
    model.add(reply("slow answer", stall=30))
    _, first = send_command(editor, "agentLsp.runTask", {"task": "first"})
    await wait_until(lambda: model.requests, what="the first task to reach the model")

    diag = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": "m"}
    for command, arg in [
        ("agentLsp.runTask", {"task": "second"}),
        ("agentLsp.fixDiagnostic", {"uri": (workspace / "a.py").as_uri(), "diagnostic": diag}),
        ("agentLsp.newSession", None),
    ]:
        with pytest.raises(JsonRpcException) as err:
            await execute(editor, command, *([arg] if arg else []), timeout=5)
        assert err.value.code == -32803, (command, err.value)
        assert "already working on a task; cancel it first" in err.value.message, err.value
    assert len(model.requests) == 1  # the refused tasks never reached the model
    assert not first.done()

    assert (await execute(editor, "agentLsp.cancel")) == {"cancelled": True}
    assert (await asyncio.wait_for(first, 5))["status"] == "cancelled"
    model.add(reply("now it is my turn"))
    assert (await execute(editor, "agentLsp.runTask", {"task": "second"}))["status"] == "done"
    assert model.violations == []


async def test_history_carries_over_until_new_session(launch, model):
    editor = await launch()
    assert await execute(editor, "agentLsp.cancel") == {"cancelled": False}  # nothing to cancel yet
    model.add(reply("one"), reply("two"), reply("three"))
    await execute(editor, "agentLsp.runTask", {"task": "first"})
    await execute(editor, "agentLsp.runTask", {"task": "second"})
    roles = [m["role"] for m in model.requests[1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]

    assert await execute(editor, "agentLsp.newSession") == {"ok": True}
    await execute(editor, "agentLsp.runTask", {"task": "third"})
    messages = model.requests[2]["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == "third"
    assert model.violations == []
