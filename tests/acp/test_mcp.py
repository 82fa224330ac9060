"""The client's mcpServers (session/new) join the session as trusted servers: a real mcp-server-time."""

from __future__ import annotations

from acp.helpers import text_block

from tests.acp.client import EditorClient, settle
from tests.helpers import no_violations, tool_messages  # noqa: F401  (autouse fixture)
from tests.mcp.conftest import server_exe
from tests.scripted_model import reply, tool_call


async def test_the_clients_mcp_server_gives_the_agent_its_tools(start, workspace, model):
    exe = server_exe("mcp-server-time")
    model.add(tool_call("mcp__time__get_current_time", {"timezone": "UTC"}), reply("It is some time in UTC."))
    client = EditorClient()
    conn, _ = await start(client)
    session = await conn.new_session(
        cwd=str(workspace), mcp_servers=[{"name": "time", "command": str(exe), "args": [], "env": []}])
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("what time is it?")])
    await settle()
    assert answer.stop_reason == "end_turn"
    names = [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert "mcp__time__get_current_time" in names
    (result,) = [m["content"] for m in tool_messages(model.requests[-1])]
    assert "UTC" in result and not result.startswith("error"), result
    assert client.permissions == []  # read-only (readOnlyHint) and the client's own choice: not asked


async def test_a_clients_server_that_never_starts_is_a_note_not_a_failure(start, workspace, model):
    model.add(reply("fine without it"))
    client = EditorClient()
    conn, _ = await start(client)
    session = await conn.new_session(
        cwd=str(workspace), mcp_servers=[{"name": "fs", "command": "/bin/false", "args": [], "env": []}])
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
    assert answer.stop_reason == "end_turn"
    texts = [m.get("content") for m in model.requests[0]["messages"]]
    assert "hello" in texts and any("MCP server 'fs' did not start" in str(t) for t in texts)
