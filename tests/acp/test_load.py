"""session/load: an earlier session replayed from its transcript as updates, then continued."""

from __future__ import annotations

import json
import os
from pathlib import Path

from acp.helpers import text_block

from tests.acp.client import EditorClient, settle
from tests.helpers import no_violations  # noqa: F401  (autouse fixture)
from tests.scripted_model import reply, tool_call


async def test_load_replays_and_continues(start, workspace, model):
    (workspace / "a.txt").write_text("alpha\n")
    todos = [{"content": "read a.txt", "status": "completed"}]
    model.add(
        tool_call("todo_write", {"todos": todos}),
        tool_call("read_file", {"path": "a.txt"}),
        reply("a.txt says alpha."),
        reply("You asked what a.txt says; it says alpha."),
    )
    first = EditorClient()
    conn, _ = await start(first)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[text_block("what does a.txt say?")])
    sid = session.session_id
    transcript = Path(os.environ["XDG_STATE_HOME"]) / "agent-lsp" / f"{sid}.jsonl"
    lines_before = len(transcript.read_text().splitlines())

    # a second agent process (the editor restarted) loads it
    second = EditorClient()
    conn2, _ = await start(second)
    await conn2.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
    await settle()
    kinds = [u.session_update for u in second.updates
             if u.session_update not in ("available_commands_update", "session_info_update")]
    assert second.of("available_commands_update") and second.of("session_info_update")
    assert kinds == ["user_message_chunk", "tool_call", "plan", "tool_call_update", "tool_call",
                     "tool_call_update", "agent_message_chunk"], kinds
    assert second.updates[0].content.text == "what does a.txt say?"
    assert second.updates[4].title == "Read a.txt" and second.updates[5].status == "completed"
    assert second.text() == "a.txt says alpha."

    second.updates.clear()
    answer = await conn2.prompt(session_id=sid, prompt=[text_block("what did I ask?")])
    assert answer.stop_reason == "end_turn"
    sent = model.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "tool",
                                         "assistant", "user"]
    assert sent[1]["content"] == "what does a.txt say?" and sent[-1]["content"] == "what did I ask?"
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert len(records) > lines_before  # the loaded session appends to its own transcript
    assert sum(r["kind"] == "message" and r["data"]["role"] == "system" for r in records) == 1


async def test_load_of_a_session_with_a_compaction(start, workspace, model, tmp_path):
    sid = "20260101-120000-0123abcd"
    folder = Path(os.environ["XDG_STATE_HOME"]) / "agent-lsp"
    folder.mkdir(parents=True)
    msgs = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "old one"},
        {"role": "assistant", "content": "old answer"},
        {"role": "user", "content": "recent"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"true\"}"}}]},
    ]
    rows = [{"t": 0, "kind": "message", "data": m} for m in msgs]
    rows.insert(3, {"t": 0, "kind": "compaction", "data": {"removed": 2, "summary": "they said hi"}})
    (folder / f"{sid}.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
    model.add(reply("continued"))
    client = EditorClient()
    conn, _ = await start(client)
    await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
    await conn.prompt(session_id=sid, prompt=[text_block("next")])
    sent = model.requests[-1]["messages"]
    assert "they said hi" in sent[1]["content"] and sent[2]["content"] == "recent"
    # the call the session never answered (it crashed mid-command) gets an answer
    assert sent[4] == {"role": "tool", "tool_call_id": "c1", "content": "error: the session ended before this finished"}
