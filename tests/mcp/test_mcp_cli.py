"""The terminal face with a project `.mcp.json`: `--yes` does not trust it, `agent-lsp trust` does;
a helper's steps are printed nested under its call."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.lsp.conftest import processes
from tests.mcp.conftest import FLAKY
from tests.scripted_model import reply, tool_call
from tests.test_cli import agent


def test_yes_does_not_trust_a_project_server_and_trust_does(workspace: Path, model, tmp_path):
    marker = tmp_path / "started"
    entry = {"command": "sh", "args": ["-c", f'touch "{marker}"; exec "{sys.executable}" "{FLAKY}"']}
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": entry}}))
    model.add(reply("no tools"))
    r = agent(["run", "--yes", "hello"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    assert "[trust] The project" in r.stderr and "proj (.mcp.json): sh -c" in r.stderr  # asked even under --yes
    assert "MCP server 'proj' from .mcp.json was not started" in r.stderr and "agent-lsp trust" in r.stderr
    assert not marker.exists()

    t = agent(["trust", str(workspace)], cwd=workspace, base_url=model.base_url)
    assert t.returncode == 0 and "mcp:proj" in t.stdout, t.stdout + t.stderr
    model.add(tool_call("mcp__proj__echo", {"text": "hi"}), reply("echoed"))
    r = agent(["run", "--yes", "echo hi"], cwd=workspace, base_url=model.base_url, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "[trust]" not in r.stderr and marker.exists()
    assert r.stdout == "echoed\n"
    assert '→ mcp__proj__echo({"text": "hi"})' in r.stderr
    assert not processes(str(FLAKY))  # stopped with the session


def test_a_helpers_steps_print_nested(workspace: Path, model):
    (workspace / "a.txt").write_text("alpha\n")
    model.add(tool_call("spawn_agent", {"task": "read a.txt"}), tool_call("read_file", {"path": "a.txt"}),
              reply("a.txt says alpha"), reply("the helper says alpha"))
    r = agent(["run", "what is in a.txt?"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    i = lines.index('→ spawn_agent({"task": "read a.txt"})')
    assert lines[i + 1] == '  │ → read_file({"path": "a.txt"})'
    assert r.stdout == "the helper says alpha\n"  # the helper's own answer is not printed as the answer
