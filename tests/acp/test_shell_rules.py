"""The ACP face and the approval rules: what it asks even under --yes, and what "always" may mean."""

from __future__ import annotations

import json

from acp.helpers import text_block

from tests.acp.client import EditorClient, settle
from tests.helpers import no_violations, tool_messages  # noqa: F401  (autouse fixture)
from tests.scripted_model import reply, tool_call


def results(model) -> list[str]:
    return [m["content"] for m in tool_messages(model.requests[-1])]


async def test_under_yes_a_hidden_program_is_asked_and_a_no_holds(start, workspace, model):
    rules = workspace / ".agent-lsp" / "permissions.json"
    rules.parent.mkdir()
    rules.write_text(json.dumps({"deny": ["bash(rm -rf*)"]}))
    (workspace / "build").mkdir()
    model.add(tool_call("bash", {"command": "$(echo rm) -rf build"}), tool_call("bash", {"command": "echo fine"}),
              reply("ok"))
    client = EditorClient(answers=["reject_once"])
    conn, _ = await start(client, "--yes")
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert (await conn.prompt(session_id=session.session_id, prompt=[text_block("clean")])).stop_reason == "end_turn"
    await settle()
    (asked, options), = client.permissions  # only the line that cannot be judged; `echo fine` ran under --yes
    assert "asked even under --yes / autoApprove" in asked.content[0].content.text
    assert [o.kind for o in options] == ["allow_once", "reject_once", "reject_always"]
    assert (workspace / "build").is_dir()
    assert results(model) == ["user denied this action", "fine\n[exit 0]"]


async def test_a_command_no_rule_may_cover_is_never_allowed_always(start, workspace, model):
    model.add(tool_call("bash", {"command": "echo $(date +%Y)"}), reply("one"),
              tool_call("bash", {"command": "echo $(touch marker)"}), reply("two"))
    client = EditorClient(answers=["allow_once", "reject_once"])
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    for task in ("first", "second"):
        assert (await conn.prompt(session_id=session.session_id, prompt=[text_block(task)])).stop_reason == "end_turn"
    await settle()
    assert [[o.kind for o in options] for _, options in client.permissions] == \
        [["allow_once", "reject_once", "reject_always"]] * 2, "each asked, neither offers 'always allow'"
    assert not (workspace / "marker").exists()
