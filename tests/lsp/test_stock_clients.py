"""Stock clients and the usual command lines, at the protocol level (issue 9).

- `serve --stdio`, pygls' `--tcp --host H --port P` and `--ws`, and our `--tcp HOST:PORT`:
  a real client connects each way, gets its code actions and runs a task.
- A document the commands would refuse gets no code actions.
- eglot is recognised by clientInfo, by the process its processId names, or (1.9 seen
  from afar) by its capabilities, and then gets detached commands unless the person
  chose otherwise; the log says once what the snippet adds, and once what writing a
  file behind an open buffer means in Emacs.
"""

from __future__ import annotations

import asyncio
import copy
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from tests.lsp.conftest import wait_until
from tests.lsp_helpers import Editor, _converter, capabilities, code_actions, execute, rng, stop_editor
from tests.scripted_model import reply, tool_call

SERVER = [sys.executable, "-m", "agent_lsp", "serve"]


def _env(model_url: str) -> dict[str, str]:
    return dict(os.environ, AGENT_BASE_URL=model_url, AGENT_MODEL="scripted")


async def _initialize(client: LanguageClient, root: Path, *, caps=None, client_info=None, process_id=None,
                      init_options: dict[str, Any] | None = None) -> Editor:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=caps if caps is not None else capabilities("visual-studio-code"),
            client_info=client_info,
            process_id=process_id,
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)), name=root.name)],
            initialization_options={"maxSteps": 10, "commandTimeout": 5, **(init_options or {})},
        )
    )
    return Editor(client)


async def start_stdio(root: Path, model_url: str, *args: str, **init: Any) -> Editor:
    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    await client.start_io(*SERVER, *args, env=_env(model_url))
    return await _initialize(client, root, **init)


@pytest.fixture
async def editors():
    started: list[Editor] = []
    yield started
    for ed in started:
        await stop_editor(ed)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _connect(port: int, proc: subprocess.Popen, ws: bool, timeout: float = 20) -> LanguageClient:
    """Connect as soon as the server listens (a probe connection would be its one client)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited with {proc.returncode}: {proc.stderr.read()}")
        client = LanguageClient(converter_factory=_converter)
        register_lsp_features(client)
        try:
            await (client.start_ws if ws else client.start_tcp)("127.0.0.1", port)
            return client
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def _one_round(editor: Editor, workspace: Path, model) -> None:
    """What every transport must carry: a code action and a task with its answer."""
    (workspace / "a.py").write_text("x = 1\n")
    uri = editor.open(workspace / "a.py")
    actions = await code_actions(editor, uri, rng(0, 0, 0, 0), [])
    assert [a.title for a in actions] == ["Ask agent about line 1"]
    model.add(reply("all good"))
    result = await execute(editor, "agentLsp.runTask", {"task": "check", "uri": uri})
    assert result["status"] == "done" and result["answer"] == "all good"


async def test_serve_stdio_flag(editors, workspace, model):
    """`agent-lsp serve --stdio`, as vscode-languageclient's TransportKind.stdio starts it."""
    editors.append(ed := await start_stdio(workspace, model.base_url, "--stdio"))
    await _one_round(ed, workspace, model)
    assert model.violations == []


@pytest.mark.parametrize("flags", [
    pytest.param(lambda p: ["--tcp", "--host", "127.0.0.1", "--port", str(p)], id="pygls-tcp"),
    pytest.param(lambda p: ["--tcp", f"127.0.0.1:{p}"], id="tcp-host-port"),
    pytest.param(lambda p: ["--ws", "--host", "127.0.0.1", "--port", str(p)], id="pygls-ws"),
])
async def test_serve_over_the_network(flags, workspace, model):
    """pygls' `--tcp --host --port` and `--ws`, and our `--tcp HOST:PORT`: a client connects,
    works, shuts the server down, and the server exits cleanly."""
    port = _free_port()
    args = flags(port)
    proc = subprocess.Popen([*SERVER, *args], env=_env(model.base_url), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        client = await _connect(port, proc, ws="--ws" in args)
        editor = await _initialize(client, workspace)
        await _one_round(editor, workspace, model)
        await asyncio.wait_for(client.shutdown_session(), 10)
        await asyncio.to_thread(proc.wait, 20)
        assert proc.returncode == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert model.violations == []


@pytest.mark.parametrize("args, message", [
    (["--stdio", "--tcp"], "give one of --stdio, --tcp, --ws"),
    (["--tcp", "--ws"], "give one of --stdio, --tcp, --ws"),
    (["--port", "2087"], "--host and --port go with --tcp or --ws"),
    (["--tcp", "localhost"], "--tcp wants HOST:PORT"),
    (["--tcp", "h:1", "--port", "2"], "not both"),
    (["--ws", "--port", "70000"], "--port wants a number"),
])
def test_serve_refuses_unclear_transport(args, message):
    out = subprocess.run([*SERVER, *args], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


async def test_no_code_actions_for_an_unknown_document(editors, workspace, model, tmp_path):
    """Not open and not on disk, not a file, outside the workspace: no actions. Open (even
    if not saved yet) or on disk inside the workspace: the usual ones."""
    editors.append(ed := await start_stdio(workspace, model.base_url))
    outside = tmp_path / "elsewhere.py"
    outside.write_text("secret = 1\n")
    (workspace / "on_disk.py").write_text("x = 1\n")
    diag = types.Diagnostic(range=rng(0, 0, 0, 1), message="bad")
    unknown = [
        (workspace / "missing.py").as_uri(),
        outside.as_uri(),
        (workspace / ".." / outside.name).as_uri(),
        "untitled:Untitled-1",
        "https://example.com/a.py",
    ]
    ed.open(outside)  # open in the editor, but outside the workspace: still refused
    for uri in unknown:
        assert list(await code_actions(ed, uri, rng(0, 0, 0, 0), [diag]) or []) == [], uri
    new_uri = ed.open(workspace / "new.py", text="y = 2\n")  # open, not saved yet
    for uri in [(workspace / "on_disk.py").as_uri(), new_uri]:
        titles = [a.title for a in await code_actions(ed, uri, rng(0, 0, 0, 0), [diag])]
        assert titles == ["Fix with agent: bad", "Ask agent about line 1"], uri
    assert model.requests == []


# ---------------------------------------------------------------------------- eglot


def eglot19_capabilities() -> types.ClientCapabilities:
    """eglot 1.9's capabilities (no general, no window, no change annotations), from the Emacs 29 preset."""
    caps = copy.deepcopy(capabilities("emacs", annotations=False))
    caps.general = None
    caps.window = None
    return caps


@pytest.fixture
def emacs_process(tmp_path):
    """A process named `emacs` (a copy of sleep): what eglot's processId points at."""
    exe = tmp_path / "bin" / "emacs"
    exe.parent.mkdir()
    shutil.copy(shutil.which("sleep"), exe)
    proc = subprocess.Popen([str(exe), "60"])
    yield proc.pid
    proc.kill()
    proc.wait()


async def _task_status(ed: Editor, workspace: Path, model) -> str:
    (workspace / "a.py").write_text("x = 1\n")
    model.add(reply("hello"))
    result = await execute(ed, "agentLsp.runTask", {"task": "hi", "uri": ed.open(workspace / "a.py")})
    if result["status"] == "started":  # detached: the answer arrives as a message
        await wait_until(lambda: any("agent: hello" in m.message for m in ed.client.messages), 10, "the answer")
    return result["status"]


def _logs(ed: Editor) -> list[str]:
    return [m.message for m in ed.client.log_messages]


@pytest.mark.parametrize("how", ["clientInfo", "processId", "capabilities"])
async def test_eglot_recognised_and_detached(how, editors, workspace, model, emacs_process):
    init: dict[str, Any] = {"caps": capabilities("emacs")}
    if how == "clientInfo":
        init["client_info"] = types.ClientInfo(name="Eglot", version="1.17")
    elif how == "processId":
        init["process_id"] = emacs_process
    else:
        init["caps"] = eglot19_capabilities()
    editors.append(ed := await start_stdio(workspace, model.base_url, **init))
    assert await _task_status(ed, workspace, model) == "started"
    said = [m for m in _logs(ed) if "stock eglot" in m]
    assert len(said) == 1 and f"recognised by {how}" in said[0] and "emacs-client/ ((require 'agent-lsp) (agent-lsp-setup)) adds" in said[0], _logs(ed)


@pytest.mark.parametrize("init", [
    pytest.param({"caps": capabilities("emacs")}, id="emacs-29-caps-without-clientInfo"),
    pytest.param({"client_info": types.ClientInfo(name="Neovim")}, id="neovim"),
    pytest.param({"client_info": types.ClientInfo(name="Eglot"), "init_options": {"detachCommands": False}},
                 id="eglot-chose-attached"),
    pytest.param({"client_info": types.ClientInfo(name="Emacs (lsp-mode)")}, id="other-emacs-client"),
])
async def test_not_detached_otherwise(init, editors, workspace, model):
    """Nothing that looks like eglot, or eglot with detachCommands chosen: commands resolve with the answer."""
    editors.append(ed := await start_stdio(workspace, model.base_url, **init))
    assert await _task_status(ed, workspace, model) == "done"


async def test_eglot_with_the_snippet_hears_nothing_about_it(editors, workspace, model):
    caps = eglot19_capabilities()
    caps.experimental = {"agentLsp": {"saveDocument": True}}
    editors.append(ed := await start_stdio(workspace, model.base_url, caps=caps,
                                           init_options={"detachCommands": True}))
    assert await _task_status(ed, workspace, model) == "started"
    assert not [m for m in _logs(ed) if "stock eglot" in m or "emacs-client/" in m], _logs(ed)


async def test_stock_eglot_accepted_edits_reach_disk_and_the_log_says_once(editors, workspace, model):
    """Two edits of an open file accepted in the inline review: judged accepted, written by
    the server, and one log line about "changed since visited" that names the snippet."""
    path = workspace / "calc.py"
    path.write_text("def add(a, b):\n    return a - b\n\n\ndef one():\n    return 2\n")
    editors.append(ed := await start_stdio(workspace, model.base_url, caps=eglot19_capabilities()))
    uri = ed.open(path)
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("edit_file", {"path": "calc.py", "old": "return 2", "new": "return 1"}),
        reply("fixed"),
    )
    result = await execute(ed, "agentLsp.runTask", {"task": "fix", "uri": uri})
    assert result["status"] == "started"
    for _ in range(2):  # eglot 1.9 cannot preview: each edit waits in the inline review
        pending = await wait_until(lambda: [d for d in ed.client.diagnostics.get(uri, []) if d.source == "agent-lsp"],
                                   10, "the edit under review")
        actions = await code_actions(ed, uri, pending[0].range, pending)
        (accept,) = [a for a in actions if a.title == "Accept agent edit"]
        assert (await execute(ed, accept.command.command, *accept.command.arguments))["accepted"] is True
        # that edit's diagnostics go (the next edit's may already be up: only the last publish is kept)
        await wait_until(lambda: pending[0].message not in [d.message for d in ed.client.diagnostics.get(uri, [])],
                         10, "the review to end")
    await wait_until(lambda: any("agent: fixed" in m.message for m in ed.client.messages), 15, "the answer")
    assert not [d for d in ed.client.diagnostics.get(uri, []) if d.source == "agent-lsp"]
    fixed = "def add(a, b):\n    return a + b\n\n\ndef one():\n    return 1\n"
    assert path.read_text() == fixed and ed.docs[uri][1] == fixed
    results = [m["content"] for m in model.requests[-1]["messages"] if m.get("role") == "tool"]
    assert len(results) == 2 and not any("rejected" in r or "stale" in r for r in results), results
    said = [m for m in _logs(ed) if "changed since visited" in m and "stock eglot (" not in m]
    assert len(said) == 1 and "calc.py" in said[0] and "emacs-client/" in said[0], _logs(ed)
    assert model.violations == []


async def test_eglot_gets_flushes_after_output_and_others_do_not(editors, workspace, model):
    """Emacs 28's jsonrpc stops reading after a synchronous answer: for eglot, output is
    followed by `$/agentLsp/flush`; for other clients nothing extra is sent."""
    flushes: dict[str, list[float]] = {"eglot": [], "vscode": []}
    for who, info in (("eglot", types.ClientInfo(name="Eglot")), ("vscode", types.ClientInfo(name="Visual Studio Code"))):
        client = LanguageClient(converter_factory=_converter)
        register_lsp_features(client)
        client.feature("$/agentLsp/flush")(lambda _params, who=who: flushes[who].append(time.monotonic()))
        await client.start_io(*SERVER, env=_env(model.base_url))
        editors.append(ed := await _initialize(client, workspace, client_info=info))
        (workspace / "a.py").write_text("x = 1\n")
        sent = time.monotonic()
        await code_actions(ed, ed.open(workspace / "a.py"), rng(0, 0, 0, 0), [])
        await asyncio.sleep(1.3)
        if who == "eglot":
            assert len(flushes[who]) >= 2 and flushes[who][0] - sent < 0.6, flushes
        else:
            assert flushes[who] == [], flushes


async def test_each_version_gets_this_servers_diagnostics(editors, workspace, model):
    """rass merges diagnostics per version and waits for every server: each didOpen and
    didChange is answered with ours (none here)."""
    editors.append(ed := await start_stdio(workspace, model.base_url))
    (workspace / "a.py").write_text("x = 1\n")
    uri = ed.open(workspace / "a.py")
    def none_published() -> bool:
        got = ed.client.diagnostics.get(uri)
        return got is not None and list(got) == []

    await wait_until(none_published, 5, "diagnostics after didOpen")
    for i in range(3):
        ed.client.diagnostics[uri] = None  # then each change must bring a new publish
        ed.type_text(uri, f"x = {i}\n")
        await wait_until(none_published, 5, f"diagnostics after change {i}")


async def test_stock_neovim_hears_once_what_the_config_adds(editors, workspace, model):
    editors.append(ed := await start_stdio(workspace, model.base_url, client_info=types.ClientInfo(name="Neovim")))
    await _task_status(ed, workspace, model)
    said = [m for m in _logs(ed) if "Neovim without the agent-lsp config" in m]
    assert len(said) == 1 and "nvim-client/" in said[0] and ":AgentFix" in said[0], _logs(ed)
