"""MCP servers' tools in the loop: real servers from PyPI (mcp-server-time, mcp-server-git) and
a misbehaving one (tests/mcp/flaky_server.py), the scripted model, a recording Host."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_lsp.agent.mcp import config as mcp_config, source as mcp_source
from agent_lsp.agent.policy import settings_files, trust
from agent_lsp.agent.loop import CANCELLED_RESULT
from agent_lsp.agent.mcp.client import log_path, tool_name
from tests.helpers import (
    RecordingHost,
    assert_paired,
    last_tool_results,
    make_session,
    no_violations,  # noqa: F401 (autouse: model.violations == [] after each test)
    wait_until,
)
from tests.lsp.conftest import processes
from tests.mcp.conftest import FLAKY, flaky_entry
from tests.scripted_model import call, reply, tool_call, tool_calls

pytestmark = pytest.mark.timeout(180)


class TrustHost(RecordingHost):
    """A RecordingHost that answers trust questions (and records them)."""

    def __init__(self, *, trust_answer: bool = False, **kw) -> None:
        super().__init__(**kw)
        self.trust_answer = trust_answer
        self.trust_questions: list[str] = []

    async def trust_project(self, root, question: str) -> bool:
        self.trust_questions.append(question)
        return self.trust_answer


async def session_with(ws: Path, model, servers: dict, host: RecordingHost | None = None, **settings):
    host = host or RecordingHost(confirm=False)
    session = make_session(ws, model, host, mcp_servers=servers, **settings)
    notes = await mcp_source.attach(session, ws)
    return session, host, notes


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def statuses(host: RecordingHost) -> list[str]:
    return host.texts("status")


# ---------------------------------------------------------------- real servers


async def test_time_server_read_only_tool_runs_without_asking(workspace, model, time_server):
    model.add(tool_call("mcp__time__get_current_time", {"timezone": "Europe/Paris"}), reply("It is late."),
              reply("again"))
    session, host, _ = await session_with(workspace, model, {"time": {"command": str(time_server)}})
    try:
        result = await session.run_turn("what time is it in Paris?")
        assert result.status == "done"
        out = last_tool_results(model.requests[1])[0]
        assert '"timezone": "Europe/Paris"' in out and '"datetime"' in out
        assert host.confirms == []  # readOnlyHint: true, a server the person configured
        names = tool_names(model.requests[0])
        assert names[-2:] == ["mcp__time__convert_time", "mcp__time__get_current_time"]  # after the built-ins, sorted
        schema = next(t for t in model.requests[0]["tools"] if t["function"]["name"] == "mcp__time__get_current_time")
        assert schema["function"]["parameters"]["required"] == ["timezone"]
        await session.run_turn("and now?")
        # the tool list is byte-identical on every request
        assert len({json.dumps(r["tools"], sort_keys=False) for r in model.requests}) == 1
    finally:
        await session.aclose()
    assert not processes(str(time_server)), "the server outlived its session"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    git(r, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "start")
    (r / "new.txt").write_text("new\n")
    return r


async def test_git_server_reads_freely_and_a_denied_write_changes_nothing(workspace, model, git_server, repo):
    model.add(
        tool_calls(call("mcp__git__git_status", {"repo_path": str(repo)}),
                   call("mcp__git__git_add", {"repo_path": str(repo), "files": ["new.txt"]})),
        reply("new.txt is untracked; you did not let me stage it."),
    )
    host = RecordingHost(confirm=False)
    servers = {"git": {"command": str(git_server), "args": ["--repository", str(repo)]}}
    session, host, _ = await session_with(workspace, model, servers, host)
    try:
        result = await session.run_turn("stage new.txt")
    finally:
        await session.aclose()
    assert result.status == "done"
    status, add = last_tool_results(model.requests[1])
    assert "new.txt" in status and "Untracked" in status
    assert add == "user denied this action"
    assert len(host.confirms) == 1  # only the write was asked, showing server, tool and arguments
    name, args, preview = host.confirms[0]
    assert name == "mcp__git__git_add" and args == {"repo_path": str(repo), "files": ["new.txt"]}
    assert "MCP server git" in preview and "git_add" in preview and "new.txt" in preview
    assert git(repo, "status", "--porcelain") == "?? new.txt\n"  # nothing was staged
    assert not processes(str(git_server))


async def test_git_server_an_approved_write_runs(workspace, model, git_server, repo):
    model.add(tool_call("mcp__git__git_add", {"repo_path": str(repo), "files": ["new.txt"]}), reply("staged"))
    servers = {"git": {"command": str(git_server), "args": ["--repository", str(repo)]}}
    session, host, _ = await session_with(workspace, model, servers, RecordingHost(confirm=True))
    try:
        await session.run_turn("stage new.txt")
    finally:
        await session.aclose()
    assert git(repo, "status", "--porcelain") == "A  new.txt\n"


# ---------------------------------------------------------------- misbehaving servers


async def test_crash_mid_call_is_an_error_for_the_model_and_the_session_goes_on(workspace, model):
    model.add(tool_call("mcp__flaky__crash"), tool_call("mcp__flaky__echo", {"text": "hi"}), reply("it crashed"))
    session, host, _ = await session_with(workspace, model, {"flaky": flaky_entry()})
    try:
        result = await session.run_turn("crash it")
    finally:
        await session.aclose()
    assert result.status == "done"
    crashed = last_tool_results(model.requests[1])[0]
    assert crashed.startswith("error: MCP server 'flaky' exited while running crash")
    after = last_tool_results(model.requests[2])[0]
    assert after.startswith("error: MCP server 'flaky' is not running")
    lines = [s for s in statuses(host) if "tool crash" in s]
    assert len(lines) == 1 and "flaky: crashing now" in lines[0]  # one line, with the server's last words
    for r in model.requests:  # stderr goes to the log, never to the model
        assert "crashing now" not in json.dumps(r["messages"])
    assert "flaky: crashing now" in log_path("flaky").read_text()
    assert_paired(session.messages)


async def test_cancel_interrupts_a_hanging_call_within_a_second(workspace, model, tmp_path):
    marker = tmp_path / "hang-started"
    model.add(tool_call("mcp__flaky__hang", {"marker": str(marker)}), tool_call("mcp__flaky__echo", {"text": "still here"}),
              reply("fine"))
    session, host, _ = await session_with(workspace, model, {"flaky": flaky_entry()})
    try:
        turn = asyncio.ensure_future(session.run_turn("hang"))
        assert await wait_until(marker.exists, timeout=30), "the hang tool never started"
        started = time.monotonic()
        turn.cancel()
        result = await asyncio.wait_for(turn, 5)
        took = time.monotonic() - started
        assert result.status == "cancelled" and took < 1.0, took
        cancelled = Path(str(marker) + ".cancelled")
        assert await wait_until(cancelled.exists, timeout=5), "the server never saw notifications/cancelled"
        assert session.messages[-1]["content"] == CANCELLED_RESULT
        assert_paired(session.messages)
        # the server got notifications/cancelled and still answers
        assert (await session.run_turn("again")).status == "done"
        assert last_tool_results(model.requests[-1]) == ["echo: still here"]
    finally:
        await session.aclose()


async def test_a_call_past_mcp_timeout_is_an_error(workspace, model):
    model.add(tool_call("mcp__flaky__hang"), reply("too slow"))
    session, host, _ = await session_with(workspace, model, {"flaky": flaky_entry()})
    await session.sources[0].open(host)  # (a start takes longer than the call's timeout below)
    session.settings.mcp_timeout = 1
    try:
        started = time.monotonic()
        await session.run_turn("hang")
    finally:
        await session.aclose()
    out = last_tool_results(model.requests[1])[0]
    assert out == "error: MCP server 'flaky': hang did not answer within 1 s (mcpTimeout); it was cancelled"
    assert time.monotonic() - started < 30
    assert any("tool hang" in s and "mcpTimeout" in s for s in statuses(host))


async def test_results_errors_images_and_unknown_arguments(workspace, model):
    model.add(
        tool_calls(call("mcp__flaky__fail", {"reason": "because"}), call("mcp__flaky__picture"),
                   call("mcp__flaky__echo", {"text": 5})),
        reply("ok"),
    )
    session, host, _ = await session_with(workspace, model, {"flaky": flaky_entry()})
    try:
        await session.run_turn("try things")
    finally:
        await session.aclose()
    failed, picture, bad_args = last_tool_results(model.requests[1])
    assert failed.startswith("error: ") and "fail" in failed
    assert picture.splitlines()[0] == "a caption"
    assert picture.splitlines()[1].startswith("[image content (image/png") and "not shown]" in picture
    assert bad_args.startswith("error: ") and "valid string" in bad_args
    assert "iVBOR" not in picture  # no base64 reaches the model


async def test_a_server_that_is_not_installed_or_hangs_at_start(workspace, model):
    model.add(tool_call("mcp__flaky__echo", {"text": "x"}), reply("done anyway"))
    servers = {"missing": {"command": "agent-lsp-no-such-mcp-server"}, "stuck": flaky_entry("--hang-at-start"),
               "flaky": flaky_entry()}
    session, host, _ = await session_with(workspace, model, servers, mcp_timeout=8)
    try:
        result = await session.run_turn("go")
    finally:
        await session.aclose()
    assert result.status == "done"
    first = model.requests[0]
    names = tool_names(first)
    assert "mcp__flaky__echo" in names and not any(n.startswith(("mcp__missing", "mcp__stuck")) for n in names)
    notes = [m["content"] for m in first["messages"] if m["role"] == "user"][1:]
    assert any("'missing' did not start: command not found: agent-lsp-no-such-mcp-server" in n for n in notes)
    assert any("'stuck' did not start: it did not answer initialize within 8 s" in n for n in notes)
    assert sum("did not start" in s for s in statuses(host)) == 2
    assert not processes("--hang-at-start")


# ---------------------------------------------------------------- project servers and trust


def write_mcp_json(ws: Path, marker: Path, name: str = "proj") -> dict:
    entry = {"command": "sh", "args": ["-c", f'touch "{marker}"; exec "{sys.executable}" "{FLAKY}"']}
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {name: entry}}))
    return entry


async def test_project_mcp_json_runs_nothing_before_trust(workspace, model, tmp_path):
    marker = tmp_path / "started"
    write_mcp_json(workspace, marker)
    model.add(reply("no tools from the project"), reply("with tools"))
    host = TrustHost(trust_answer=False)
    session = make_session(workspace, model, host, auto_approve=True)  # --yes does not trust
    notes = await mcp_source.attach(session, workspace)
    await session.run_turn("hi")
    assert len(host.trust_questions) == 1
    question = host.trust_questions[0]
    assert "proj (.mcp.json)" in question and f"{sys.executable}" in question and "touch" in question
    assert any("'proj' from .mcp.json was not started" in n and "agent-lsp trust" in n for n in notes)
    await asyncio.sleep(0.5)
    assert not marker.exists() and not any(n.startswith("mcp__") for n in tool_names(model.requests[0]))

    # a "no" is remembered for the session when a face passes `declined`; `agent-lsp trust` grants it
    subjects = settings_files.project_subjects(workspace)
    assert "mcp:proj" in subjects
    trust.grant(workspace, subjects)
    notes = await mcp_source.attach(session, workspace)
    await session.run_turn("again")
    await session.aclose()
    assert len(host.trust_questions) == 1  # trusted now: not asked again
    assert marker.exists() and "mcp__proj__echo" in tool_names(model.requests[1])


async def test_a_trusted_entry_is_asked_again_when_it_changes(workspace, model, tmp_path):
    marker = tmp_path / "started"
    entry = write_mcp_json(workspace, marker)
    host = TrustHost(trust_answer=True)
    session = make_session(workspace, model, host)
    await mcp_source.attach(session, workspace)
    assert len(host.trust_questions) == 1
    await session.aclose()
    session = make_session(workspace, model, host)
    await mcp_source.attach(session, workspace)  # the same entry: remembered
    assert len(host.trust_questions) == 1
    await session.aclose()
    entry["args"][1] += " --changed"
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": entry}}))
    host.trust_answer = False
    declined: dict[str, str] = {}
    session = make_session(workspace, model, host)
    await mcp_source.attach(session, workspace, declined)
    await mcp_source.attach(session, workspace, declined)  # an editor asks once per session
    await session.aclose()
    assert len(host.trust_questions) == 2 and "--changed" in host.trust_questions[1]
    assert session.sources == []


def test_configuration_sources_and_expansion(workspace, monkeypatch):
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "mcp.json").write_text(json.dumps({"servers": {
        "docs": {"type": "http", "url": "https://${DOCS_HOST:-docs.example.com}/mcp",
                 "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
        "shared": {"command": "from-vscode"},
    }}))
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "shared": {"command": "from-mcp-json"},
        "tool": {"command": "${TOOL_BIN}", "args": ["--root", "${workspaceFolder}"], "env": {"LEVEL": "${LEVEL:-3}"}},
        "broken": {"args": ["no command"]},
    }}))
    monkeypatch.setenv("TOOL_BIN", "/opt/tool")
    monkeypatch.setenv("DOCS_TOKEN", "tok")
    monkeypatch.delenv("DOCS_HOST", raising=False)
    specs, notes = mcp_config.configured(workspace, {"mine": {"command": "mine"}, "shared": {"command": "from-settings"}})
    by = {s.name: s for s in specs}
    assert [s.name for s in specs] == ["docs", "mine", "shared", "tool"]  # sorted: a fixed order
    assert by["shared"].command == "from-settings" and not by["shared"].project  # the person's own entry wins
    assert by["tool"].command == "/opt/tool" and by["tool"].args == ("--root", str(workspace))
    assert by["tool"].env == {"LEVEL": "3"} and by["tool"].source == ".mcp.json"
    assert by["docs"].kind == "http" and by["docs"].url == "https://docs.example.com/mcp"
    assert by["docs"].headers == {"Authorization": "Bearer tok"} and by["docs"].source == ".vscode/mcp.json"
    assert any("'broken'" in n and "needs a command" in n for n in notes)
    assert set(mcp_config.project_subjects(workspace)) == {"mcp:docs", "mcp:shared", "mcp:tool"}


def test_tool_names_are_valid_function_names():
    assert tool_name("git", "git_status") == "mcp__git__git_status"
    assert tool_name("my server.v2", "do/it") == "mcp__my_server_v2__do_it"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("mcp__")


def test_nothing_of_mcp_is_imported_without_a_server(tmp_path):
    code = (
        "import sys, asyncio\n"
        "from pathlib import Path\n"
        "import agent_lsp.cli, agent_lsp.server.main, agent_lsp.server.features\n"
        "from agent_lsp.agent.mcp import source as mcp_source\n"
        "from agent_lsp.agent.setup import open_session\n"
        "from agent_lsp.agent.host import Host\n"
        "from agent_lsp.agent.settings import Settings\n"
        f"s = open_session(Path({str(tmp_path)!r}), Host(), Settings(), transcript=False)\n"
        f"print(asyncio.run(mcp_source.attach(s, Path({str(tmp_path)!r}))))\n"
        "bad = sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types', 'starlette', 'uvicorn')))\n"
        "print('IMPORTED', bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "IMPORTED []" in out.stdout, out.stdout


async def test_a_child_gets_the_read_only_mcp_tools_only(workspace, model):
    from agent_lsp.agent.tools.subagents import CHILD_PROMPT

    def child(body):
        if body["messages"][0]["content"].startswith(CHILD_PROMPT[:30]):
            if body["messages"][-1]["role"] == "tool":
                return {"content": "the server said: " + body["messages"][-1]["content"]}
            return {"tool_calls": [{"name": "mcp__flaky__echo", "arguments": {"text": "from the child"}}]}
        return {"content": "done"}

    model.add(tool_call("spawn_agent", {"task": "ask the flaky server"}), child, child, child)
    session, host, _ = await session_with(workspace, model, {"flaky": flaky_entry()})
    try:
        await session.run_turn("go")
    finally:
        await session.aclose()
    child_tools = tool_names(model.requests[1])
    assert child_tools[:3] == ["read_file", "list_files", "grep"]
    assert "mcp__flaky__echo" in child_tools and "mcp__flaky__touch" not in child_tools  # touch is not read-only
    assert last_tool_results(model.requests[-1]) == ["Files the helper read: (none)\n\nthe server said: echo: from the child"]


async def test_an_http_server_with_headers(workspace, model, monkeypatch):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(FLAKY), "--http", str(port)], stderr=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL)
    try:
        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        assert await wait_until(listening, timeout=30)
        monkeypatch.setenv("FLAKY_TOKEN", "t0ken")
        model.add(tool_call("mcp__web__echo", {"text": "over http"}), reply("ok"))
        servers = {"web": {"type": "http", "url": f"http://127.0.0.1:{port}/mcp",
                           "headers": {"Authorization": "Bearer ${FLAKY_TOKEN}"}}}
        session, host, _ = await session_with(workspace, model, servers)
        try:
            await session.run_turn("echo over http")
        finally:
            await session.aclose()
        assert last_tool_results(model.requests[1]) == ["echo: over http"]
    finally:
        proc.terminate()
        proc.wait(10)
