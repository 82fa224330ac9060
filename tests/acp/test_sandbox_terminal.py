"""ACP: a command run in the editor's terminal (`terminal/create`) is the sandboxed one.

The client runs what it is given with its own environment underneath; the sandbox and
the scrubbed environment must come with the command line itself.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from acp.helpers import text_block

from tests.acp.client import EditorClient
from tests.acp.test_flow import results, settle
from tests.sandbox.conftest import require_sandbox
from tests.scripted_model import reply, tool_call


@pytest.fixture
def outside():
    base = Path(tempfile.mkdtemp(prefix="agent-lsp-acp-sbx-", dir="/var/tmp"))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def test_terminal_command_runs_sandboxed_without_the_clients_tokens(start, workspace, model, outside,
                                                                          monkeypatch):
    require_sandbox()
    monkeypatch.setenv("GH_TOKEN", "ghp_" + "k" * 36)  # the editor's environment holds a token
    model.add(tool_call("bash", {"command": f"echo \"[$GH_TOKEN]\"; touch {outside}/escaped; echo ok > inside.txt"}),
              reply("done"))
    client = EditorClient(terminal=True)
    conn, _ = await start(client)
    session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
    await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    await settle()
    (out,) = results(model)
    assert client.terminal_calls.count("create") == 1
    assert out.startswith("[]\n") and "ghp_" not in out
    assert not (outside / "escaped").exists() and (workspace / "inside.txt").read_text() == "ok\n"
    assert "Read-only file system" in out
    assert '\nnote: the sandbox (sandbox: "workspace-write") blocked a write outside the workspace' in out
    assert out.endswith("[exit 0]")
    asked = client.permissions[0][0]
    assert any("Runs sandboxed (workspace-write" in getattr(getattr(c, "content", None), "text", "")
               for c in asked.content or []), asked
