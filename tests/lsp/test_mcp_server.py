"""MCP servers, memory and sub-agents through `agent-lsp serve`: servers live as long as the
session and never outlive the editor; .mcp.json waits for the editor's Trust; showMemory."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent_lsp.agent.state import memory
from tests.lsp.conftest import processes, tool_results, wait_until
from tests.lsp_helpers import execute, stop_editor
from tests.mcp.conftest import FLAKY, flaky_entry
from tests.scripted_model import reply, tool_call


async def test_servers_live_with_the_session_and_die_with_the_editor(launch, model, workspace):
    model.add(tool_call("mcp__flaky__echo", {"text": "one"}), reply("first"),
              tool_call("mcp__flaky__echo", {"text": "two"}), reply("second"))
    editor = await launch(init_options={"mcpServers": {"flaky": flaky_entry()}}, stream=True)
    assert (await execute(editor, "agentLsp.runTask", {"task": "echo one"}, timeout=60))["status"] == "done"
    pids = processes(str(FLAKY))
    assert len(pids) == 1
    assert (await execute(editor, "agentLsp.runTask", {"task": "echo two"}))["status"] == "done"
    assert processes(str(FLAKY)) == pids  # one long-lived server for the session
    assert tool_results(model, "mcp__flaky__echo") == ["echo: one", "echo: two"]
    assert any(e["data"].get("name") == "mcp__flaky__echo" for e in editor.events if e["kind"] == "tool")

    editor.client._server.stdin.close()  # the editor goes away without shutdown/exit
    await wait_until(lambda: editor.client._server.returncode is not None, timeout=15, what="the server to exit")
    await wait_until(lambda: not processes(str(FLAKY)), timeout=10, what="the MCP server to exit")


async def test_shutdown_stops_the_servers(launch, model):
    model.add(tool_call("mcp__flaky__echo", {"text": "x"}), reply("ok"))
    editor = await launch(init_options={"mcpServers": {"flaky": flaky_entry()}})
    await execute(editor, "agentLsp.runTask", {"task": "echo"}, timeout=60)
    assert processes(str(FLAKY))
    await asyncio.wait_for(editor.client.shutdown_session(), 15)
    assert not processes(str(FLAKY))  # gone before shutdown answered
    await stop_editor(editor)


async def test_project_mcp_json_waits_for_trust(launch, model, workspace):
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": flaky_entry()}}))
    model.add(reply("no project tools"), reply("still none"))
    editor = await launch()
    editor.command_answer = "Don't trust"
    await execute(editor, "agentLsp.runTask", {"task": "one"})
    await execute(editor, "agentLsp.runTask", {"task": "two"})
    questions = [m.message for m in editor.message_requests]
    assert len(questions) == 1, questions  # a "no" holds for the session
    assert "proj (.mcp.json)" in questions[0] and str(FLAKY) in questions[0]
    assert [a.title for a in editor.message_requests[0].actions] == ["Trust", "Don't trust"]
    assert not processes(str(FLAKY))
    assert not any(t["function"]["name"].startswith("mcp__") for r in model.requests for t in r["tools"])
    await stop_editor(editor)

    model.add(tool_call("mcp__proj__echo", {"text": "trusted"}), reply("done"))
    editor = await launch()
    editor.command_answer = "Trust"
    await execute(editor, "agentLsp.runTask", {"task": "three"}, timeout=60)
    assert tool_results(model, "mcp__proj__echo") == ["echo: trusted"]


async def test_show_memory_returns_the_path(launch, workspace):
    editor = await launch()
    result = await execute(editor, "agentLsp.showMemory")
    path = Path(result["path"])
    assert path == memory.memory_path(workspace) and path.exists()


async def test_a_helpers_steps_are_nested_in_progress_and_events(launch, model, workspace):
    from lsprotocol import types

    (workspace / "a.txt").write_text("alpha\n")
    model.add(tool_call("spawn_agent", {"task": "read a.txt"}, id="call_helper"),
              tool_call("read_file", {"path": "a.txt"}), reply("it says alpha"), reply("alpha"))
    editor = await launch(stream=True)
    assert (await execute(editor, "agentLsp.runTask", {"task": "what is in a.txt?"}))["status"] == "done"
    reports = [r.message for rs in editor.client.progress_reports.values() for r in rs
               if isinstance(r, types.WorkDoneProgressReport)]
    lines = [r.split(" · tokens: ")[0] for r in reports]  # the task's tokens so far follow each line
    i = lines.index('→ spawn_agent({"task": "read a.txt"})')
    assert lines[i + 1] == '  │ → read_file({"path": "a.txt"})'
    nested = [e for e in editor.events if (e["data"] or {}).get("parent") == "call_helper"]
    assert [e["kind"] for e in nested] == ["tool", "tool_result"]
    assert tool_results(model, "spawn_agent") == ["Files the helper read: a.txt\n\nit says alpha"]
