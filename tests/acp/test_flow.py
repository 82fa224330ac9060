"""A turn through an ACP client: streamed text, tool calls with kinds and diffs, permissions, files, the plan."""

from __future__ import annotations

import sys

from acp.helpers import text_block

from agent_lsp.terminal.demo import FIZZBUZZ, TEST
from tests.acp.client import EditorClient, settle
from tests.helpers import no_violations, tool_messages  # noqa: F401  (autouse fixture)
from tests.scripted_model import call, reply, tool_call, tool_calls

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider test_fizzbuzz.py"
FIXED = FIZZBUZZ.replace("range(1, n)", "range(1, n + 1)")


def results(model) -> list[str]:
    return [m["content"] for m in tool_messages(model.requests[-1])]


async def test_initialize_advertises_what_we_do(start):
    client = EditorClient()
    conn, _ = await start(client)
    answer = await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
    assert answer.protocol_version == 1
    caps = answer.agent_capabilities
    assert caps.load_session is True
    assert caps.prompt_capabilities.embedded_context is True and caps.prompt_capabilities.image is False
    assert caps.mcp_capabilities.http is True and caps.mcp_capabilities.sse is False
    assert answer.auth_methods == [] and answer.agent_info.name == "agent-lsp"


async def test_fizzbuzz_fix_with_the_diff_asked_and_allowed(start, workspace, model):
    (workspace / "fizzbuzz.py").write_text(FIZZBUZZ)
    (workspace / "test_fizzbuzz.py").write_text(TEST)
    model.add(
        tool_call("bash", {"command": PYTEST}),
        tool_call("read_file", {"path": "fizzbuzz.py"}),
        tool_call("edit_file", {"path": "fizzbuzz.py", "old": "range(1, n)", "new": "range(1, n + 1)"}),
        tool_call("bash", {"command": PYTEST}),
        reply("Fixed the off-by-one: range now includes n. Both tests pass."),
    )
    client = EditorClient()
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("run the tests, fix the bug, run them again")])
    await settle()
    assert answer.stop_reason == "end_turn"
    assert (workspace / "fizzbuzz.py").read_text() == FIXED
    assert client.writes == [(str((workspace / "fizzbuzz.py").resolve()), FIXED)]

    # three gated steps, each asked once, with the four options
    asked = [tc for tc, _ in client.permissions]
    assert [tc.kind for tc in asked] == ["execute", "edit", "execute"]
    options = client.permissions[0][1]
    # one option per kind (clients show them by kind): "allow always" is the rule, for this session
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert options[1].name.endswith("for this session") and "`" in options[1].name
    assert [o.kind for o in client.permissions[1][1]] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert PYTEST in asked[0].content[0].content.text
    (diff,) = asked[1].content
    assert diff.type == "diff" and diff.path == str((workspace / "fizzbuzz.py").resolve())
    assert diff.old_text == FIZZBUZZ and diff.new_text == FIXED
    assert asked[1].tool_call_id == list(client.calls())[2]

    # every tool call streamed with kind, title, locations and a final status
    calls = list(client.calls().values())
    assert [c["start"].kind for c in calls] == ["execute", "read", "edit", "execute"]
    assert calls[1]["start"].title == "Read fizzbuzz.py"
    assert calls[1]["start"].locations[0].path == str((workspace / "fizzbuzz.py").resolve())
    assert [c["updates"][-1].status for c in calls] == ["completed"] * 4
    assert any(b.type == "diff" for b in calls[2]["updates"][-1].content)
    out = results(model)
    assert "2 failed" in out[0] and "2 passed" in out[3] and "[exit 0]" in out[3]
    assert "Both tests pass" in client.text()


async def test_rejected_edit_leaves_the_file_byte_identical(start, workspace, model):
    original = b"line one\r\nline two\r\n\xc3\xa9t\xc3\xa9\r\n"
    (workspace / "notes.txt").write_bytes(original)
    model.add(
        tool_call("edit_file", {"path": "notes.txt", "old": "line two", "new": "line 2"}),
        tool_call("write_file", {"path": "notes.txt", "content": "all new\n"}),
        reply("Left it as it was."),
    )
    client = EditorClient(answers=["reject_always"])
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("tidy notes.txt")])
    await settle()
    assert answer.stop_reason == "end_turn"
    assert (workspace / "notes.txt").read_bytes() == original
    assert len(client.permissions) == 1  # "reject always" held for the second edit
    assert client.writes == []
    out = results(model)
    assert all(r.startswith("error: the user rejected this edit") for r in out), out
    assert [c["updates"][-1].status for c in client.calls().values()] == ["failed", "failed"]


async def test_denied_command_does_not_run(start, workspace, model):
    model.add(
        tool_call("bash", {"command": "touch denied-marker"}),
        reply("The command was denied."),
    )
    client = EditorClient(answers=["reject_once"])
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("make a marker")])
    await settle()
    assert answer.stop_reason == "end_turn"
    assert not (workspace / "denied-marker").exists()
    assert results(model) == ["user denied this action"]
    (tc, _), = client.permissions
    assert tc.kind == "execute" and "touch denied-marker" in tc.content[0].content.text
    (c,) = client.calls().values()
    assert c["updates"][-1].status == "failed"


async def test_allow_always_holds_for_the_session(start, workspace, model):
    model.add(
        tool_call("bash", {"command": "touch a.txt"}),
        reply("one"),
        tool_call("bash", {"command": "touch b.txt"}),
        reply("two"),
    )
    client = EditorClient(answers=["allow_always"])
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    for task in ("first", "second"):
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block(task)])
        assert answer.stop_reason == "end_turn"
    assert (workspace / "a.txt").exists() and (workspace / "b.txt").exists()
    assert len(client.permissions) == 1


async def test_reads_come_from_the_unsaved_buffer(start, workspace, model):
    path = workspace / "draft.py"
    path.write_text("ON_DISK = 1\n")
    model.add(tool_call("read_file", {"path": "draft.py"}), reply("It says UNSAVED."))
    client = EditorClient(buffers={str(path.resolve()): "UNSAVED = 2\n"})
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[text_block("what does draft.py hold?")])
    assert results(model) == ["1: UNSAVED = 2"]
    assert client.reads == [str(path.resolve())]


async def test_an_edit_against_a_buffer_changed_meanwhile_is_stale(start, workspace, model):
    path = workspace / "app.py"
    path.write_text("x = 1\n")
    model.add(
        tool_call("edit_file", {"path": "app.py", "old": "x = 1", "new": "x = 2"}),
        reply("It changed under me."),
    )
    client = EditorClient(buffers={str(path.resolve()): "x = 1\n"})

    def person_types(_tool_call) -> None:  # while the dialog is open
        client.buffers[str(path.resolve())] = "x = 1\ny = 3\n"

    client.on_permission = person_types
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[text_block("bump x")])
    (out,) = results(model)
    assert out.startswith("error: app.py changed in the editor since you read it"), out
    assert client.writes == [] and path.read_text() == "x = 1\n"
    assert client.buffers[str(path.resolve())] == "x = 1\ny = 3\n"


async def test_without_fs_the_disk_is_used_with_the_same_confinement(start, workspace, model):
    (workspace / "a.txt").write_text("disk text\n")
    model.add(
        tool_calls(call("read_file", {"path": "a.txt"}), call("read_file", {"path": "../outside.txt"})),
        tool_call("write_file", {"path": "b.txt", "content": "new\n"}),
        reply("done"),
    )
    client = EditorClient(fs=False)
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    out = results(model)
    assert out[0] == "1: disk text" and "escapes the workspace" in out[1]
    assert (workspace / "b.txt").read_text() == "new\n"
    assert client.reads == [] and client.writes == []
    assert client.permissions[0][0].content[0].type == "diff"


async def test_plan_from_todo_write(start, workspace, model):
    todos = [{"content": "run the tests", "status": "completed"}, {"content": "fix the bug", "status": "in_progress"}]
    model.add(tool_call("todo_write", {"todos": todos}), reply("Planned."))
    client = EditorClient()
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[text_block("plan it")])
    await settle()
    (plan,) = client.of("plan")
    assert [(e.content, e.status) for e in plan.entries] == [("run the tests", "completed"), ("fix the bug", "in_progress")]
    (c,) = client.calls().values()
    assert c["start"].kind == "think" and c["updates"][-1].status == "completed"


async def test_bash_in_the_client_terminal(start, workspace, model):
    model.add(
        tool_call("bash", {"command": "echo hi from the terminal; echo $AGENT_API_KEY; exit 3"}),
        tool_call("bash", {"command": "sleep 30"}),
        reply("done"),
    )
    client = EditorClient(terminal=True)
    conn, _ = await start(client, "--timeout", "1")
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    await settle()
    first, second = results(model)
    assert first == "hi from the terminal\n\n[exit 3]"  # the key is blanked in the terminal's env
    assert "[timed out after 1s" in second
    assert client.terminal_calls.count("create") == 2 and client.terminal_calls.count("release") == 2
    assert "kill" in client.terminal_calls
    assert all(t.released and t.proc.returncode is not None for t in client.terminals.values())
    c = list(client.calls().values())[0]
    assert any(b.type == "terminal" for b in c["updates"][-1].content)


async def test_embedded_context_and_resource_links_reach_the_model(start, workspace, model):
    from acp.helpers import embedded_text_resource, resource_block, resource_link_block

    model.add(reply("Seen."))
    client = EditorClient()
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    f = workspace / "x.py"
    await conn.prompt(session_id=session.session_id, prompt=[
        text_block("look at these"),
        resource_link_block("x.py", f.as_uri()),
        resource_block(embedded_text_resource(f.as_uri(), "SELECTED = True")),
    ])
    task = model.requests[0]["messages"][-1]["content"]
    assert "look at these" in task and f"[attached: {f}]" in task and "SELECTED = True" in task


async def test_always_allow_in_this_project_writes_the_rule_for_the_next_session(start, workspace, model):
    from agent_lsp.agent.policy import permissions

    model.add(tool_call("bash", {"command": "touch a.txt"}), reply("one"),
              tool_call("bash", {"command": "touch b.txt && touch c.txt"}), reply("two"))
    client = EditorClient(answers=["allow_always"])
    conn, _ = await start(client)
    first = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert (await conn.prompt(session_id=first.session_id, prompt=[text_block("first")])).stop_reason == "end_turn"
    assert permissions.read_rules(workspace).allow == []  # for this session only, until /always-allow
    await conn.prompt(session_id=first.session_id, prompt=[text_block("/always-allow")])
    rules = permissions.read_rules(workspace)
    assert rules.allow == ["bash(touch*)"]
    second = await conn.new_session(cwd=str(workspace), mcp_servers=[])  # a new session: the project's rule
    assert (await conn.prompt(session_id=second.session_id, prompt=[text_block("second")])).stop_reason == "end_turn"
    assert (workspace / "c.txt").exists() and len(client.permissions) == 1
