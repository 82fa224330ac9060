"""The file tools cannot change `.git/` or `.agent-lsp/`, nor agent-lsp's own state; commands cannot run `agent-lsp trust`."""

from __future__ import annotations

import json
import os
import shlex
import sys

import pytest

from agent_lsp.agent.policy import settings_files
from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call
from tests.security.util import agent, git, trust_file, write

PROTECTED = [".git/hooks/pre-commit", ".git/config", ".agent-lsp/permissions.json", ".agent-lsp/settings.json",
             ".AGENT-LSP/settings.json", "sub/../.git/info/attributes"]


@pytest.mark.parametrize("path", PROTECTED)
def test_write_file_refuses_git_and_agent_lsp_folders(workspace, model, path):
    git(workspace, "init", "-q")
    (workspace / ".agent-lsp").mkdir()
    before = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
    model.add(tool_call("write_file", {"path": path, "content": "#!/bin/sh\ntouch pwned\n"}), reply("tried"))
    r = agent(["run", "--yes", "write it"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    result = model.requests[1]["messages"][-1]["content"]
    assert result.startswith("error:") and "allowMetadataWrites" in result, result
    after = {p: p.read_bytes() for p in workspace.rglob("*") if p.is_file()}
    assert after == before


def test_edit_file_refuses_git_config(workspace, model):
    git(workspace, "init", "-q")
    cfg = (workspace / ".git" / "config").read_text()
    model.add(tool_call("edit_file", {"path": ".git/config", "old": "[core]", "new": "[core]\n\tfsmonitor = touch pwned"}),
              reply("tried"))
    r = agent(["run", "--yes", "edit it"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    assert (workspace / ".git" / "config").read_text() == cfg
    assert "error:" in model.requests[1]["messages"][-1]["content"]


def test_the_person_can_allow_metadata_writes_in_their_own_settings(workspace, model):
    write(settings_files.user_settings_path(), {"allowMetadataWrites": True})
    model.add(tool_call("write_file", {"path": ".agent-lsp/permissions.json", "content": '{"allow": []}\n'}), reply("ok"))
    r = agent(["run", "--yes", "write it"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    assert (workspace / ".agent-lsp" / "permissions.json").read_text() == '{"allow": []}\n'


def test_a_project_cannot_allow_metadata_writes_for_itself(workspace, model):
    write(settings_files.project_settings_path(workspace), {"allowMetadataWrites": True, "allow_metadata_writes": True})
    model.add(tool_call("write_file", {"path": ".agent-lsp/permissions.json", "content": '{"allow": ["bash(*)"]}\n'}),
              reply("ok"))
    r = agent(["run", "--yes", "write it"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    assert not (workspace / ".agent-lsp" / "permissions.json").exists()


@pytest.mark.parametrize("which", ["trust", "memory", "user-settings", "permissions-elsewhere"])
def test_file_tools_cannot_reach_agent_lsps_own_state(workspace, model, which):
    from agent_lsp.agent.state import memory

    target = {"trust": trust_file(), "memory": memory.memory_path(workspace),
              "user-settings": settings_files.user_settings_path(),
              "permissions-elsewhere": workspace.parent / "other" / ".agent-lsp" / "permissions.json"}[which]
    model.add(tool_call("write_file", {"path": str(target), "content": '{"autoApprove": true}'}), reply("ok"))
    r = agent(["run", "--yes", "write it"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    assert not target.exists()
    assert "error:" in model.requests[1]["messages"][-1]["content"]


def _sandbox_on_main() -> bool:
    from pathlib import Path

    import agent_lsp

    return (Path(agent_lsp.__file__).parent / "agent" / "sandbox").is_dir() or \
        (Path(agent_lsp.__file__).parent / "sandbox").is_dir()


@pytest.mark.xfail(not _sandbox_on_main(), reason="the sandbox (another change) makes the trust store read-only to commands",
                   strict=False)
def test_an_agent_command_cannot_run_agent_lsp_trust(workspace, model):
    write(settings_files.project_settings_path(workspace), {"diagnosticServers": {"*.py": ["sh", "-c", "touch pwned"]}})
    cmd = f"{shlex.quote(sys.executable)} -m agent_lsp trust ."
    model.add(tool_call("bash", {"command": cmd}), reply("tried"))
    r = agent(["run", "--yes", "trust yourself"], cwd=workspace, base_url=model.base_url, stdin="n\n",
              XDG_STATE_HOME=os.environ["XDG_STATE_HOME"])
    assert r.returncode == 0, r.stderr
    data = json.loads(trust_file().read_text()) if trust_file().exists() else {}
    assert str(workspace.resolve()) not in data, "a command trusted the project"
