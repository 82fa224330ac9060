"""agentLsp.listSessions / agentLsp.showSession: this workspace's earlier sessions, read
back from the transcripts the server wrote, and never another workspace's."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call


async def test_earlier_sessions_are_listed_and_shown_read_only(launch, model, workspace, tmp_path):
    (workspace / "a.py").write_text("print('hi')\n")
    editor = await launch()
    assert await execute(editor, "agentLsp.listSessions") == []

    model.add(tool_call("read_file", {"path": "a.py"}), reply("a.py prints hi."))
    assert (await execute(editor, "agentLsp.runTask", {"task": "what does a.py do?"}))["status"] == "done"
    model.add(reply("Nothing else to do."))
    await execute(editor, "agentLsp.runTask", {"task": "anything else?\nsecond line"})
    await execute(editor, "agentLsp.newSession")
    model.add(tool_call("read_file", {"path": "missing.py"}), reply("There is no missing.py."))
    await execute(editor, "agentLsp.runTask", {"task": "read missing.py"})

    # another workspace's session, written by another server to the same state dir
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = await launch(root=other)
    model.add(reply("elsewhere"))
    await execute(elsewhere, "agentLsp.runTask", {"task": "a task in another project"})

    listed = await execute(editor, "agentLsp.listSessions")
    assert [s["title"] for s in listed] == ["read missing.py", "what does a.py do?"]  # newest first
    assert [s["status"] for s in listed] == ["done", "done"]
    assert all(set(s) == {"id", "started", "title", "status"} for s in listed)
    assert listed[0]["started"] >= listed[1]["started"] and listed[1]["started"].endswith("Z")

    shown = await execute(editor, "agentLsp.showSession", {"id": listed[1]["id"]})
    assert shown["title"] == "what does a.py do?" and shown["status"] == "done"
    kinds = [e["kind"] for e in shown["events"]]
    assert kinds == ["task", "tool", "tool_result", "text", "answer", "task", "text", "answer"], kinds
    tool, result, _text, answer = shown["events"][1:5]
    assert tool["data"]["name"] == "read_file" and '"a.py"' in tool["data"]["arguments"]
    assert result["data"]["ok"] is True and "print('hi')" in result["data"]["result"]
    assert answer == {"kind": "answer", "text": "a.py prints hi.", "data": {"status": "done", "steps": 2}}
    assert "what does a.py do?" in shown["summary"] and "a.py prints hi." in shown["summary"]
    assert "anything else?" in shown["summary"] and "Nothing else to do." in shown["summary"]

    failed = await execute(editor, "agentLsp.showSession", {"id": listed[0]["id"]})
    assert failed["events"][2]["kind"] == "tool_result" and failed["events"][2]["data"]["ok"] is False

    # the other workspace sees only its own session, and cannot open this one's
    assert [s["title"] for s in await execute(elsewhere, "agentLsp.listSessions")] == ["a task in another project"]
    with pytest.raises(JsonRpcException) as err:
        await execute(elsewhere, "agentLsp.showSession", {"id": listed[0]["id"]})
    assert "no session" in err.value.message and "in this workspace" in err.value.message


@pytest.mark.parametrize("args", [[], [{"id": 7}], [{"id": "../../etc/passwd"}], ["x"]])
async def test_show_session_refuses_bad_ids(launch, args):
    editor = await launch()
    with pytest.raises(JsonRpcException) as err:
        await execute(editor, "agentLsp.showSession", *args)
    assert err.value.code == -32602, err.value
    assert "agentLsp.showSession" in err.value.message
