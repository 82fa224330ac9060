"""The session controls ACP clients show: modes, model choice, slash commands, usage, titles, session/list.

Each test drives a real `agent-lsp acp` through the SDK's client side on the scripted
model, and every message the agent sends is checked against the pinned SDK's schema,
losslessly (tests/acp/schema_check.py), as it arrives.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.helpers import text_block
from acp.schema import Implementation

from tests.acp.client import EditorClient, settle
from tests.acp.schema_check import SchemaChecker
from tests.helpers import no_violations, tool_messages  # noqa: F401  (autouse fixture)
from tests.scripted_model import MODEL_ID, reply, tool_call

KEY = "sk-test-acp-KEY-0123456789"


@pytest.fixture
async def checked(workspace, model, agent_log):
    """`conn = await checked(client, *flags)`: like `start`, with every message schema-checked."""
    checker = SchemaChecker()

    def observe(event) -> None:
        checker.feed(event.message, from_agent=event.direction.value == "incoming")

    async with contextlib.AsyncExitStack() as stack:
        async def go(client: EditorClient, *flags: str, root: Path | None = None):
            env = {k: v for k, v in os.environ.items() if k not in ("AGENT_API_KEY", "OPENAI_API_KEY")}
            env.update({"AGENT_BASE_URL": model.base_url, "AGENT_MODEL": "scripted", "AGENT_API_KEY": KEY})
            err = stack.enter_context(open(agent_log, "ab"))
            conn, _proc = await stack.enter_async_context(spawn_agent_process(
                client, sys.executable, "-m", "agent_lsp", "acp", "--timeout", "10", *flags, env=env,
                cwd=root or workspace, transport_kwargs={"stderr": err}, observers=[observe]))
            await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=client.capabilities(),
                                  client_info=Implementation(name="tests", version="1"))
            return conn

        yield go
        await settle()
    assert checker.checked > 0
    assert checker.problems == [], checker.problems
    log = agent_log.read_text() if agent_log.exists() else ""
    assert "Traceback" not in log, log
    assert KEY not in log, "the API key reached the agent's log"


def results(model) -> list[str]:
    return [m["content"] for m in tool_messages(model.requests[-1])]


def ended(client: EditorClient) -> list[str]:
    """Each tool call's last status; every one must have ended, with content and object raw fields."""
    out = []
    for c in client.calls().values():
        assert c["updates"], f"{c['start'].tool_call_id} never ended"
        last = c["updates"][-1]
        assert last.status in ("completed", "failed") and last.content, last
        assert isinstance(last.raw_output, dict), last.raw_output
        assert c["start"].raw_input is None or isinstance(c["start"].raw_input, dict)
        out.append(last.status)
    return out


async def test_new_session_offers_modes_models_and_commands(checked, workspace, model):
    client = EditorClient()
    conn = await checked(client)
    init = await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
    assert init.agent_capabilities.session_capabilities.list is not None
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await settle()
    assert session.modes.current_mode_id == "ask"
    assert [m.id for m in session.modes.available_modes] == ["ask", "accept-edits", "read-only"]
    (option,) = session.config_options
    assert option.id == "model" and option.category == "model" and option.current_value == "scripted"
    assert [o.value for o in option.options] == ["scripted", MODEL_ID]  # the configured one, then GET /models
    (commands,) = client.of("available_commands_update")
    assert {c.name for c in commands.available_commands} == {"undo", "memory", "always-allow"}


async def test_modes_show_in_what_happens(checked, workspace, model):
    model.add(
        tool_call("write_file", {"path": "ro.txt", "content": "no\n"}),
        tool_call("bash", {"command": "touch ro-marker"}),
        reply("nothing changed"),
        tool_call("write_file", {"path": "ae.txt", "content": "yes\n"}),
        tool_call("bash", {"command": "touch ae-marker"}),
        reply("written; the command was refused"),
    )
    client = EditorClient(answers=["reject_once"])
    conn = await checked(client)
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id

    await conn.set_session_mode(session_id=sid, mode_id="read-only")
    await conn.prompt(session_id=sid, prompt=[text_block("try")])
    await settle()
    assert client.permissions == []  # nothing asked
    assert not (workspace / "ro.txt").exists() and not (workspace / "ro-marker").exists()
    assert all("Read only" in r for r in results(model)), results(model)

    await conn.set_session_mode(session_id=sid, mode_id="accept-edits")
    await conn.prompt(session_id=sid, prompt=[text_block("again")])
    await settle()
    assert (workspace / "ae.txt").read_text() == "yes\n"
    assert [tc.kind for tc, _ in client.permissions] == ["execute"]  # only the command was asked
    assert not (workspace / "ae-marker").exists()
    assert [u.current_mode_id for u in client.of("current_mode_update")] == ["read-only", "accept-edits"]
    assert ended(client) == ["failed", "failed", "completed", "failed"]

    with pytest.raises(RequestError) as bad:
        await conn.set_session_mode(session_id=sid, mode_id="yolo")
    assert "ask, accept-edits, read-only" in str(bad.value.data or bad.value)


async def test_the_model_switches_for_the_next_turn(checked, workspace, model):
    model.add(reply("one"), reply("two"), reply("three"))
    client = EditorClient()
    conn = await checked(client)
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("first")])
    answer = await conn.set_config_option(config_id="model", session_id=sid, value=MODEL_ID)
    assert answer.config_options[0].current_value == MODEL_ID
    await conn.prompt(session_id=sid, prompt=[text_block("second")])
    # the call SDK 0.8 clients make (acpc --model): session/set_model
    await conn._conn.send_request("session/set_model", {"sessionId": sid, "modelId": "scripted"})
    await conn.prompt(session_id=sid, prompt=[text_block("third")])
    assert [r["model"] for r in model.requests] == ["scripted", MODEL_ID, "scripted"]
    with pytest.raises(RequestError) as bad:
        await conn.set_config_option(config_id="model", session_id=sid, value="no-such-model")
    assert MODEL_ID in str(bad.value.data or bad.value)


async def test_one_permission_option_per_kind(checked, workspace, model):
    model.add(
        tool_call("bash", {"command": "echo hi"}),
        tool_call("write_file", {"path": "x.txt", "content": "x\n"}),
        reply("done"),
    )
    client = EditorClient()
    conn = await checked(client)
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("go")])
    assert len(client.permissions) == 2
    for _tc, options in client.permissions:
        kinds = [o.kind for o in options]
        assert sorted(kinds) == sorted(set(kinds)), kinds
    assert "Allow `echo` for this session" in [o.name for o in client.permissions[0][1]]


async def test_usage_after_each_model_call_and_a_title_from_the_first_prompt(checked, workspace, model):
    (workspace / "a.txt").write_text("alpha\n")
    model.add(tool_call("read_file", {"path": "a.txt"}), reply("alpha"), reply("still alpha"))
    client = EditorClient()
    conn = await checked(client)
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("what does a.txt say?\nsecond line")])
    await conn.prompt(session_id=sid, prompt=[text_block("and now?")])
    await settle()
    usage = client.of("usage_update")
    assert len(usage) == len(model.requests) == 3
    assert all(u.size == 128_000 and u.used > 0 for u in usage)
    assert usage[1].used > usage[0].used  # the second call sent the read's result too
    (title,) = client.of("session_info_update")
    assert title.title == "what does a.txt say?"


async def test_session_list_names_this_folders_sessions(checked, workspace, model, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    model.add(reply("a"), reply("b"), reply("c"))
    client = EditorClient()
    conn = await checked(client)
    ids = []
    for root, task in ((workspace, "first task here"), (other, "elsewhere"), (workspace, "second task here")):
        sid = (await conn.new_session(cwd=str(root), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block(task)])
        ids.append(sid)
    listed = await conn.list_sessions(cwd=str(workspace))
    assert [s.session_id for s in listed.sessions] == [ids[2], ids[0]]  # newest first, this folder only
    assert [s.title for s in listed.sessions] == ["second task here", "first task here"]
    assert all(s.cwd == str(workspace) and s.updated_at for s in listed.sessions)


async def test_session_list_pages_with_next_cursor(checked, workspace, tmp_path):
    """120 saved sessions of this folder (written as a session leaves them): three pages of at
    most 50, newest first, each id once, and a cursor the agent did not give is refused plainly."""
    from agent_lsp.agent.state.transcript import Transcript

    state = tmp_path / "state" / "agent-lsp"
    written = []
    for i in range(120):
        tr = Transcript(state, roots=[workspace])
        tr.session_id = f"20260101-{i // 60:02d}{i % 60:02d}00-{i:08x}"  # one a minute
        tr.path = state / f"{tr.session_id}.jsonl"
        tr.record("message", {"role": "user", "content": f"task {i}"})
        written.append(tr.session_id)
    conn = await checked(EditorClient())
    pages, cursor = [], None
    while True:
        page = await conn.list_sessions(cwd=str(workspace), cursor=cursor)
        pages.append([s.session_id for s in page.sessions])
        cursor = page.next_cursor
        if cursor is None:
            break
    assert [len(p) for p in pages] == [50, 50, 20]
    assert sum(pages, []) == written[::-1]
    with pytest.raises(RequestError) as e:
        await conn.list_sessions(cwd=str(workspace), cursor="../../etc/passwd")
    assert "not a cursor this agent gave" in str(e.value.data or e.value)


async def test_slash_commands_run_without_the_model(checked, workspace, model):
    (workspace / "f.txt").write_text("before\n")
    model.add(
        tool_call("edit_file", {"path": "f.txt", "old": "before", "new": "after"}),
        reply("edited"),
        tool_call("bash", {"command": "echo one"}),
        reply("ran"),
    )
    client = EditorClient(answers=["allow_once", "allow_always"])
    conn = await checked(client)
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id

    await conn.prompt(session_id=sid, prompt=[text_block("/memory")])
    await settle()
    assert "remembers nothing" in client.text() and model.requests == []

    await conn.prompt(session_id=sid, prompt=[text_block("edit f.txt")])
    assert (workspace / "f.txt").read_text() == "after\n"
    client.updates.clear()
    calls_before = len(model.requests)
    await conn.prompt(session_id=sid, prompt=[text_block("/undo")])
    await settle()
    assert (workspace / "f.txt").read_text() == "before\n"
    assert client.writes[-1] == (str((workspace / "f.txt").resolve()), "before\n")  # through the editor
    assert "restored 1 file" in client.text() and len(model.requests) == calls_before

    await conn.prompt(session_id=sid, prompt=[text_block("run it")])  # "Allow `echo` for this session"
    await conn.prompt(session_id=sid, prompt=[text_block("/always-allow")])
    await settle()
    rules = json.loads((workspace / ".agent-lsp" / "permissions.json").read_text())
    assert rules["allow"] == ["bash(echo*)"]


async def test_load_advertises_commands_and_modes(checked, workspace, model):
    model.add(reply("hello"))
    first = EditorClient()
    conn = await checked(first)
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("hi there")])
    second = EditorClient()
    conn2 = await checked(second)
    loaded = await conn2.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
    await settle()
    assert loaded.modes.current_mode_id == "ask"
    assert loaded.config_options[0].id == "model"
    assert second.of("available_commands_update")
    assert [u.title for u in second.of("session_info_update")] == ["hi there"]


async def test_models_come_from_the_endpoint_once_and_fall_back_without_a_list(checked, workspace, model):
    model.models = ["big-model", "small-model"]
    model.add(reply("one"))
    client = EditorClient()
    conn = await checked(client)
    first = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.new_session(cwd=str(workspace), mcp_servers=[])
    assert [o.value for o in first.config_options[0].options] == ["scripted", "big-model", "small-model"]
    assert model.model_lists == 1  # read once per endpoint and process
    await conn.set_config_option(config_id="model", session_id=first.session_id, value="small-model")
    await conn.prompt(session_id=first.session_id, prompt=[text_block("hi")])
    assert model.requests[-1]["model"] == "small-model"


async def test_an_endpoint_without_a_model_list_offers_the_configured_model(checked, workspace, model):
    model.models = None  # GET /models answers 404
    model.add(reply("one"))
    client = EditorClient()
    conn = await checked(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    (option,) = session.config_options
    assert [o.value for o in option.options] == ["scripted"] and option.current_value == "scripted"
    # nothing says another id is wrong, so it is taken (the next model call would say)
    await conn.set_config_option(config_id="model", session_id=session.session_id, value="named-by-hand")
    await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    assert model.requests[-1]["model"] == "named-by-hand"
