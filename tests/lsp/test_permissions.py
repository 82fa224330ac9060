"""Approvals that remember, through an editor: the showMessageRequest actions and what each one keeps."""

from __future__ import annotations

import json

from agent_lsp.agent.policy import permissions
from tests.lsp.conftest import tool_results
from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call


async def test_always_allow_writes_the_rule_and_the_next_task_runs_unasked(launch, model, workspace):
    editor = await launch()
    editor.command_answer = "Always allow `touch` in this project"
    model.add(tool_call("bash", {"command": "touch one.txt"}), reply("made"))
    assert (await execute(editor, "agentLsp.runTask", {"task": "make one"}))["status"] == "done"
    (asked,) = editor.message_requests
    assert [a.title for a in asked.actions] == [
        "Allow once", "Allow `touch` for this session", "Always allow `touch` in this project", "Deny"]
    assert (workspace / "one.txt").exists()
    assert json.loads(permissions.permissions_path(workspace).read_text()) == {"allow": ["bash(touch*)"], "deny": []}

    editor.command_answer = "Deny"  # would refuse, if it were asked
    model.add(tool_call("bash", {"command": "touch two.txt"}), reply("made"))
    await execute(editor, "agentLsp.runTask", {"task": "make two"})
    assert len(editor.message_requests) == 1, "the rule answered; nobody was asked"
    assert (workspace / "two.txt").exists() and tool_results(model)[-1] == "[exit 0]"


async def test_session_rule_and_a_deny_rule_under_auto_approve(launch, model, workspace):
    path = permissions.permissions_path(workspace)
    path.parent.mkdir()
    path.write_text(json.dumps({"deny": ["bash(rm -rf*)"]}))
    (workspace / "build").mkdir()
    editor = await launch()
    editor.command_answer = "Allow `echo` for this session"
    model.add(tool_call("bash", {"command": "echo a"}), tool_call("bash", {"command": "echo b"}), reply("ok"))
    await execute(editor, "agentLsp.runTask", {"task": "echo twice"})
    assert len(editor.message_requests) == 1 and tool_results(model)[-1] == "b\n[exit 0]"
    assert json.loads(path.read_text()) == {"deny": ["bash(rm -rf*)"]}, "a session rule is not written"

    auto = await launch(init_options={"autoApprove": True})
    model.add(tool_call("bash", {"command": "echo x; rm -rf build"}), reply("ok"))
    await execute(auto, "agentLsp.runTask", {"task": "clean"})
    assert tool_results(model)[-1].startswith("error: denied by the rule 'bash(rm -rf*)'")
    assert (workspace / "build").is_dir() and auto.message_requests == []


async def test_under_auto_approve_a_line_where_a_denied_program_may_hide_is_still_asked(launch, model, workspace):
    path = permissions.permissions_path(workspace)
    path.parent.mkdir()
    path.write_text(json.dumps({"deny": ["bash(rm -rf*)"]}))
    (workspace / "build").mkdir()
    auto = await launch(init_options={"autoApprove": True})
    auto.command_answer = "Deny"
    model.add(tool_call("bash", {"command": "$(echo rm) -rf build"}), tool_call("bash", {"command": "echo fine"}),
              reply("ok"))
    await execute(auto, "agentLsp.runTask", {"task": "clean"})
    (asked,) = auto.message_requests  # the hidden program is asked about; the plain echo is not
    assert "asked even under --yes / autoApprove: the program `$(echo rm)`" in asked.message
    assert [a.title for a in asked.actions] == ["Allow once", "Deny"]
    assert (workspace / "build").is_dir() and tool_results(model)[-2:] == ["user denied this action", "fine\n[exit 0]"]
