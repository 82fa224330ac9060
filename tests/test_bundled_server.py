"""What the server does differently when it runs from the VS Code extension's bundled libs
(pure Python: no ripgrep or tree-sitter wheels): rgPath, the rg it uses before any other
(VS Code's own); the person's PYTHONPATH for the agent's commands; permission rules
without tree-sitter."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

from agent_lsp.agent.settings import Settings
from agent_lsp.agent.workspace.scan import rg_binary
from tests.helpers import call_tool, make_ctx


def _logging_rg(tmp_path: Path) -> tuple[Path, Path]:
    """A real rg behind a wrapper that notes each run, so the test sees which rg ran."""
    real = rg_binary()
    assert real, "ripgrep is a runtime dependency but no rg binary was found"
    log = tmp_path / "rg-runs.log"
    wrapper = tmp_path / "bin" / "my-rg"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho run >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper, log


def test_rg_path_is_a_setting_in_camel_case():
    s = Settings()
    assert s.overlay({"rgPath": "/opt/vscode/rg"}) == []
    assert s.rg_path == "/opt/vscode/rg"
    assert s.overlay({"rgPath": 7}) == ["ignored setting rgPath=7: wrong type"]


async def test_grep_and_list_files_use_rg_path_first(workspace, tmp_path, monkeypatch):
    wrapper, log = _logging_rg(tmp_path)
    monkeypatch.setenv("AGENT_LSP_RG", "/nonexistent/rg")  # rgPath comes before the environment
    (workspace / "a.py").write_text("needle = 1\n")
    ctx = make_ctx(workspace, rg_path=str(wrapper))
    assert await call_tool(ctx, "grep", {"regex": "needle"}) == "a.py:1: needle = 1"
    assert await call_tool(ctx, "list_files", {}) == "a.py"
    assert log.read_text().split() == ["run", "run"]


async def test_a_missing_rg_path_falls_back(workspace, tmp_path, monkeypatch):
    monkeypatch.delenv("AGENT_LSP_RG", raising=False)
    (workspace / "a.py").write_text("needle = 1\n")
    ctx = make_ctx(workspace, rg_path=str(tmp_path / "no-such-rg"))
    assert await call_tool(ctx, "grep", {"regex": "needle"}) == "a.py:1: needle = 1"
    # and with no rg at all, the pure-Python walk answers the same
    monkeypatch.setenv("AGENT_LSP_NO_RG", "1")
    assert await call_tool(ctx, "grep", {"regex": "needle"}) == "a.py:1: needle = 1"


async def test_commands_do_not_see_the_bundled_libs(workspace, monkeypatch):
    """The VS Code extension runs the server with its bundled libs first on PYTHONPATH;
    the agent's commands (the person's tests) get the PYTHONPATH the person had."""
    from agent_lsp.agent.tools.shell import command_env

    monkeypatch.setenv("AGENT_LSP_BUNDLED_LIBS", "/ext/bundled/libs")
    monkeypatch.setenv("PYTHONPATH", "/ext/bundled/libs:/mine")
    env = command_env()
    assert env["PYTHONPATH"] == "/mine" and "AGENT_LSP_BUNDLED_LIBS" not in env
    monkeypatch.setenv("PYTHONPATH", "/ext/bundled/libs")
    assert "PYTHONPATH" not in command_env()
    ctx = make_ctx(workspace)
    out = await call_tool(ctx, "bash", {"command": "echo \"[${PYTHONPATH-unset}]\""})
    assert "[unset]" in out, out


def test_without_tree_sitter_plain_lines_are_split_and_the_rest_asked(monkeypatch):
    """The bundled libs carry no tree-sitter (platform wheels): a plain line is still read
    (agent/cmdline/plain.py) and judged by the rules; anything richer is judged unparsed
    (asked); a deny rule matches either way."""
    from agent_lsp.agent.cmdline import parse as cmdline_parse
    from agent_lsp.agent.policy import permissions

    def split(line: str) -> list[str]:
        return [c.text for c in cmdline_parse.parse(line).commands]

    monkeypatch.setitem(sys.modules, "tree_sitter_bash", None)  # what `import` sees when it is not installed
    cmdline_parse._parser.cache_clear()
    try:
        assert cmdline_parse._parser() is None
        assert split("ls && rm -rf build") == ["ls", "rm -rf build"]
        verdict = permissions.judge("bash", {"command": "ls && git status"}, ["bash(ls)", "bash(git status)"], [])
        assert not verdict.unparsed and verdict.allowed
        richer = permissions.judge("bash", {"command": "ls $(git status)"}, ["bash(ls*)", "bash(git status)"], [])
        assert richer.unparsed and not richer.allowed
        denied = permissions.judge("bash", {"command": "ls && rm -rf build"}, [], ["bash(rm -rf*)"])
        assert denied.denied_by == "bash(rm -rf*)"
        denied = permissions.judge("bash", {"command": "ls && (rm -rf build)"}, [], ["bash(rm -rf*)"])
        assert denied.unparsed and denied.denied_by == "bash(rm -rf*)"
    finally:
        monkeypatch.undo()
        cmdline_parse._parser.cache_clear()
    assert split("ls && git status") == ["ls", "git status"]
