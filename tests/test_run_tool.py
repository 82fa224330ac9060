"""run_tool: every failure is text for the model, results are capped, gated tools ask first."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

from agent_lsp.agent.policy.gate import DENIED
from agent_lsp.agent.dispatch import MAX_RESULT_CHARS
from agent_lsp.agent.registry import TOOLS, Tool, tool
from tests.helpers import (
    KEY,
    RecordingHost,
    assert_requests_extend,
    call_tool,
    last_tool_results,
    make_ctx,
    make_session,
    no_violations,  # noqa: F401 (autouse: model.violations == [] after each test)
)
from tests.scripted_model import reply, tool_call

CORE = ["read_file", "write_file", "edit_file", "list_files", "grep", "bash", "ask_user", "todo_write",
        "spawn_agent", "remember", "forget"]


@pytest.fixture
def ws(workspace: Path) -> Path:
    (workspace / "a.py").write_text("one\ntwo\nthree\nfour\n")
    return workspace


# ---------------------------------------------------------------- bad calls


async def test_unknown_tool_names_the_available_ones(ws):
    out = await call_tool(make_ctx(ws), "delete_everything", {"path": "."})
    assert out.startswith("error: unknown tool 'delete_everything'")
    listed = out.split("available tools:", 1)[1]
    assert [n.strip() for n in listed.split(",")] == CORE


async def test_malformed_json_arguments(ws):
    out = await call_tool(make_ctx(ws), "read_file", '{"path": "a.py"')
    assert out.startswith("error: arguments are not valid JSON")
    assert '{"path": "a.py"' in out, "the model should see what it sent"


@pytest.mark.parametrize("raw, kind", [('["a.py"]', "list"), ('"a.py"', "str"), ("42", "int"), ("null", "NoneType")])
async def test_arguments_that_are_not_an_object(ws, raw, kind):
    out = await call_tool(make_ctx(ws), "read_file", raw)
    assert out == f"error: arguments must be a JSON object, got {kind}"


async def test_empty_arguments_mean_no_arguments(ws):
    ctx = make_ctx(ws)
    assert await call_tool(ctx, "read_file", "") == "error: missing required parameter(s) path for read_file"
    assert "a.py" in await call_tool(ctx, "list_files", "")


async def test_missing_and_unexpected_parameters(ws):
    ctx = make_ctx(ws)
    out = await call_tool(ctx, "edit_file", {"path": "a.py"})
    assert out == "error: missing required parameter(s) old, new for edit_file"
    out = await call_tool(ctx, "read_file", {"path": "a.py", "file": "a.py", "lines": 3})
    assert out == "error: unexpected parameter(s) file, lines for read_file; it takes: path, start, end"
    assert (ws / "a.py").read_text() == "one\ntwo\nthree\nfour\n"


async def test_wrong_types_are_named(ws):
    ctx = make_ctx(ws)
    out = await call_tool(ctx, "read_file", {"path": 5})
    assert out == "error: parameter path of read_file must be a string, got int 5"
    out = await call_tool(ctx, "read_file", {"path": "a.py", "start": "two"})
    assert out == "error: parameter start of read_file must be an integer, got str 'two'"
    out = await call_tool(ctx, "read_file", {"path": "a.py", "start": True})
    assert out.startswith("error: parameter start of read_file must be an integer, got bool")
    out = await call_tool(ctx, "todo_write", {"todos": {"content": "x", "status": "pending"}})
    assert out.startswith("error: parameter todos of todo_write must be an array")


async def test_lenient_coercions_that_are_unambiguous(ws):
    ctx = make_ctx(ws)
    assert (await call_tool(ctx, "read_file", {"path": "a.py", "start": "3", "end": 3.0})) == \
        "3: three\n...[1 more lines; read them with start=4]"
    assert await call_tool(ctx, "read_file", {"path": "a.py", "end": None}) == "1: one\n2: two\n3: three\n4: four"


async def test_dict_arguments_are_accepted(ws):
    ctx = make_ctx(ws)
    call = {"id": "x", "type": "function", "function": {"name": "read_file", "arguments": {"path": "a.py", "end": 1}}}
    from agent_lsp.agent.dispatch import run_tool

    out = await run_tool(ctx, call, {n: t for n, t in TOOLS.items() if t.optional_group is None})
    assert out == "1: one\n...[3 more lines; read them with start=2]"


async def test_an_exception_inside_a_tool_is_a_message(ws):
    class BrokenDisk(RecordingHost):
        async def read_text(self, path):
            raise OSError(5, "Input/output error")

        async def apply_edit(self, change):
            raise RuntimeError("editor went away")

    ctx = make_ctx(ws, BrokenDisk())
    out = await call_tool(ctx, "read_file", {"path": "a.py"})
    assert out.startswith("error: OSError:") and "Input/output error" in out
    out = await call_tool(ctx, "write_file", {"path": "n.txt", "content": "x"})
    assert out == "error: RuntimeError: editor went away"


async def test_an_exception_in_any_tool_function_is_a_message(ws):
    async def boom(ctx, n: int) -> str:
        return str(1 // n)

    t = Tool("boom", boom, {"type": "function", "function": {"name": "boom", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}},
        {"n": inspect.signature(boom).parameters["n"]}, read_only=True, gated=False, optional_group=None)
    out = await call_tool(make_ctx(ws), "boom", {"n": 0}, tools={"boom": t})
    assert out == "error: ZeroDivisionError: integer division or modulo by zero"


async def test_results_are_capped_with_a_note(ws):
    for i in range(4):
        (ws / f"wide{i}.txt").write_text("".join(f"match {j} " + "w" * 380 + "\n" for j in range(60)))
    ctx = make_ctx(ws)
    full = await TOOLS["grep"].fn(ctx, regex="match")
    assert len(full) > MAX_RESULT_CHARS + 1000
    out = await call_tool(ctx, "grep", {"regex": "match"})
    assert out.startswith(full[:MAX_RESULT_CHARS])
    assert out[MAX_RESULT_CHARS:] == f"\n...[truncated {len(full) - MAX_RESULT_CHARS} chars]"


# ---------------------------------------------------------------- gating


async def test_a_no_denies_edits_and_commands(ws):
    host = RecordingHost(confirm=False)
    ctx = make_ctx(ws, host, auto_approve=False)
    assert await call_tool(ctx, "edit_file", {"path": "a.py", "old": "two", "new": "TWO"}) == DENIED
    assert await call_tool(ctx, "write_file", {"path": "new.txt", "content": "x"}) == DENIED
    assert await call_tool(ctx, "bash", {"command": "touch ran.txt"}) == DENIED
    assert (ws / "a.py").read_text() == "one\ntwo\nthree\nfour\n"
    assert not (ws / "new.txt").exists() and not (ws / "ran.txt").exists()
    assert [c[0] for c in host.confirms] == ["edit_file", "write_file", "bash"]
    assert host.edits == [], "a denied edit must not even be proposed"


async def test_confirmation_shows_what_will_happen(ws):
    host = RecordingHost(confirm=True)
    ctx = make_ctx(ws, host, auto_approve=False)
    body = "".join(f"line {i}\n" for i in range(1, 15))
    await call_tool(ctx, "write_file", {"path": "new.txt", "content": body})
    await call_tool(ctx, "bash", {"command": "echo hi > ran.txt"})
    (_, _, write_preview), (_, _, bash_preview) = host.confirms
    assert write_preview.splitlines()[0] == "new.txt"
    assert "  | line 1" in write_preview and "  | line 10" in write_preview and "line 11" not in write_preview
    assert "4 more lines" in write_preview
    assert bash_preview == "echo hi > ran.txt"
    assert (ws / "new.txt").read_text() == body and (ws / "ran.txt").read_text() == "hi\n"


async def test_read_only_tools_are_not_gated(ws):
    host = RecordingHost(confirm=False)
    ctx = make_ctx(ws, host, auto_approve=False)
    assert (await call_tool(ctx, "read_file", {"path": "a.py"})).startswith("1: one")
    assert "a.py" in await call_tool(ctx, "list_files", {})
    assert "a.py:2: two" == await call_tool(ctx, "grep", {"regex": "two"})
    await call_tool(ctx, "todo_write", {"todos": []})
    assert host.confirms == []


async def test_auto_approve_skips_confirm(ws):
    host = RecordingHost(confirm=False)
    ctx = make_ctx(ws, host, auto_approve=True)
    assert (await call_tool(ctx, "edit_file", {"path": "a.py", "old": "two", "new": "TWO"})).startswith("ok")
    assert await call_tool(ctx, "bash", {"command": "echo ran"}) == "ran\n[exit 0]"
    assert host.confirms == []
    assert "TWO" in (ws / "a.py").read_text()


async def test_a_bad_call_is_not_confirmed(ws):
    host = RecordingHost(confirm=True)
    ctx = make_ctx(ws, host, auto_approve=False)
    out = await call_tool(ctx, "bash", {"cmd": "rm -rf /"})
    assert out.startswith("error: unexpected parameter(s) cmd")
    assert host.confirms == []


async def test_denied_model_keeps_going(ws, model):
    model.add(
        tool_call("edit_file", {"path": "a.py", "old": "two", "new": "2"}),
        tool_call("bash", {"command": "echo hello > out.txt"}),
        reply("I could not change anything; here is the patch instead."),
    )
    host = RecordingHost(confirm=False)
    session = make_session(ws, model, host)
    result = await session.run_turn("fix it")
    await session.client.aclose()
    assert result.status == "done"
    assert result.answer == "I could not change anything; here is the patch instead."
    assert last_tool_results(model.requests[1]) == [DENIED]
    assert last_tool_results(model.requests[2]) == [DENIED]
    assert (ws / "a.py").read_text() == "one\ntwo\nthree\nfour\n" and not (ws / "out.txt").exists()
    assert model.violations == []
    assert_requests_extend(model.requests)


# ---------------------------------------------------------------- the key


async def test_the_key_is_scrubbed_from_tool_output(ws, monkeypatch):
    (ws / "leak.txt").write_text(f"token={KEY}\n")
    host = RecordingHost()
    ctx = make_ctx(ws, host, api_key=KEY)
    outs = [
        await call_tool(ctx, "read_file", {"path": "leak.txt"}),
        await call_tool(ctx, "grep", {"regex": "token"}),
        await call_tool(ctx, "bash", {"command": f"cat leak.txt; echo {KEY[:10]}''{KEY[10:]} >&2"}),
    ]
    for out in outs:
        assert KEY not in out
        assert "[redacted]" in out
    assert outs[0] == "1: token=[redacted]"
    assert KEY not in host.dump()


# ---------------------------------------------------------------- the registry


def test_schemas_come_from_signatures():
    params = TOOLS["read_file"].schema["function"]["parameters"]
    assert params["required"] == ["path"]
    assert params["properties"]["path"]["type"] == "string"
    assert params["properties"]["start"]["type"] == "integer"
    assert params["properties"]["end"]["type"] == "integer"
    assert all(p["description"] for t in TOOLS.values() for p in t.schema["function"]["parameters"]["properties"].values())
    assert list(TOOLS)[:len(CORE)] == CORE
    assert TOOLS["todo_write"].schema["function"]["parameters"]["properties"]["todos"]["items"]["required"] == \
        ["content", "status"]


def test_a_missing_help_line_fails_at_registration():
    before = dict(TOOLS)

    async def undocumented(ctx, path: str, mode: str = "r") -> str:
        return ""

    with pytest.raises(KeyError, match="mode"):
        tool("no help for mode", path="a path")(undocumented)
    assert TOOLS == before, "a broken tool must not be registered"


async def test_web_tools_are_off_by_default_and_gated_when_on(ws, model):
    off = make_session(ws, model)
    assert "web_search" not in off.tools and "fetch_url" not in off.tools
    assert [s["function"]["name"] for s in off.schemas] == CORE
    host = RecordingHost(confirm=False)
    on = make_session(ws, model, host, web_tools=True)
    assert [s["function"]["name"] for s in on.schemas] == CORE + ["web_search", "fetch_url"]
    out = await call_tool(on.ctx, "fetch_url", {"url": model.base_url + "/models"}, tools=on.tools)
    assert out == DENIED and host.confirms[0][0] == "fetch_url"
    await off.client.aclose()
    await on.client.aclose()


def test_trace_line_is_cut_at_80_chars():
    from agent_lsp.agent.dispatch import trace_line

    raw = json.dumps({"path": "src/" + "x" * 200})
    line = trace_line("read_file", raw)
    inner = re.fullmatch(r"→ read_file\((.*)\)", line).group(1)
    assert len(inner) == 80 and inner.endswith("…")
    assert trace_line("bash", '{"command": "ls"}') == '→ bash({"command": "ls"})'
