"""Bad input: a JSON-RPC error with a sentence saying what was wrong, and the agent lives on."""

from __future__ import annotations

import asyncio

import pytest
from acp import RequestError
from acp.helpers import text_block

from tests.acp.client import EditorClient
from tests.helpers import no_violations  # noqa: F401  (autouse fixture)
from tests.scripted_model import reply


async def _error(coro) -> RequestError:
    with pytest.raises(RequestError) as info:
        await coro
    return info.value


async def test_bad_requests_get_clear_errors(start, workspace, model, tmp_path):
    client = EditorClient()
    conn, proc = await start(client)
    raw = conn._conn  # the SDK's JSON-RPC connection, to send what its typed methods would refuse

    e = await _error(conn.prompt(session_id="nope", prompt=[text_block("hi")]))
    assert e.code == -32602 and "unknown session" in str(e)
    e = await _error(conn.new_session(cwd="relative/dir", mcp_servers=[]))
    assert e.code == -32602 and "absolute path" in str(e)
    e = await _error(conn.new_session(cwd=str(tmp_path / "missing"), mcp_servers=[]))
    assert e.code == -32602 and "not a folder" in str(e)
    e = await _error(conn.load_session(cwd=str(workspace), session_id="../../etc/passwd", mcp_servers=[]))
    assert e.code == -32002 and "not a session id" in str(e)
    e = await _error(conn.load_session(cwd=str(workspace), session_id="20000101-000000-00000000", mcp_servers=[]))
    assert e.code == -32002 and "no saved session" in str(e)
    e = await _error(raw.send_request("session/prompt", {"sessionId": 3, "prompt": "not a list"}))
    assert e.code == -32602
    e = await _error(raw.send_request("no/such/method", {}))
    assert e.code == -32601

    # a line that is not JSON is dropped; the next request is answered
    proc.stdin.write(b"this is not json\n{\"jsonrpc\": \"2.0\", \"id\": \n")
    await proc.stdin.drain()
    session = await conn.new_session(
        cwd=str(workspace),
        mcp_servers=[{"name": "fs", "command": "/bin/false", "args": [], "env": []}],
    )  # MCP servers are accepted and ignored (no MCP support yet)
    e = await _error(conn.prompt(session_id=session.session_id, prompt=[]))
    assert e.code == -32602 and "no text" in str(e)

    # one turn at a time per session: a second prompt waits for the first
    model.add(reply("slow", delay=1), reply("after"), reply("slow again", delay=5))
    first = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("one")]))
    await asyncio.sleep(0.3)
    second = await conn.prompt(session_id=session.session_id, prompt=[text_block("two")])
    assert first.done() and (await first).stop_reason == "end_turn" and second.stop_reason == "end_turn"
    assert [r["messages"][-1]["content"] for r in model.requests] == ["one", "two"]
    # a cancel ends the running turn and the prompt waiting behind it
    third = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("three")]))
    await asyncio.sleep(0.3)
    fourth = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("four")]))
    await asyncio.sleep(0.3)
    await conn.cancel(session_id=session.session_id)
    assert (await third).stop_reason == "cancelled" and (await fourth).stop_reason == "cancelled"
    assert len(model.requests) == 3
    assert proc.returncode is None


async def test_a_model_error_is_a_json_rpc_error_without_the_key(start, workspace, model):
    model.add({"status": 401, "error": {"message": "bad key sk-test-acp-KEY-0123456789"}}, reply("back"))
    client = EditorClient()
    conn, proc = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    e = await _error(conn.prompt(session_id=session.session_id, prompt=[text_block("hi")]))
    assert e.code == -32603 and "the model request failed" in str(e) and "401" in str(e)
    assert "sk-test-acp-KEY" not in str(e) and "Traceback" not in str(e)
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("again")])
    assert answer.stop_reason == "end_turn" and proc.returncode is None
    assert model.headers[-1]["authorization"] == "Bearer sk-test-acp-KEY-0123456789"


async def test_step_limit_is_max_turn_requests(start, workspace, model):
    from tests.scripted_model import tool_call

    model.add(tool_call("list_files", {}), reply("summary at the limit"))
    client = EditorClient()
    conn, _ = await start(client, "--max-steps", "1")
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert answer.stop_reason == "max_turn_requests"
