"""nvim-client/ as a plugin: installed the ways Neovim users install plugins, on 0.7 and 0.12.

The person's flows (edits previewed and accepted or declined, commands, the palette)
run in tests/editors/test_editors.py with this very plugin; here is what only a
plugin has: `require("agent-lsp").setup({...})` loaded from a packpath `start`
package (what vim.pack and a manual install do) or from 'runtimepath' (lazy.nvim's
`dir`), its options, set-up after the file is already open (lazy-loading),
`:help agent-lsp` and `:checkhealth agent-lsp`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.editors.conftest import CALC
from tests.editors.harness import REPO, assert_accepted_after_preview, describe, require, run_nvim, session_env, told
from tests.scripted_model import reply, tool_call

PLUGIN = REPO / "nvim-client"
FIXED_ADD = CALC.replace("return a - b", "return a + b")
VERSIONS = pytest.mark.parametrize("who", ["nvim07", "nvim012"])


def rtp_init(opts: str = "{}") -> str:
    """lazy.nvim's `dir = ...` (and a manual install): the folder on 'runtimepath', then setup()."""
    return f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))})\nrequire('agent-lsp').setup({opts})\n"


def packpath_init(home: Path, opts: str = "{}") -> str:
    """vim.pack / a packpath: the folder linked as a `start` package under the data dir."""
    start = home / ".local" / "share" / "nvim" / "site" / "pack" / "agent-lsp" / "start"
    start.mkdir(parents=True, exist_ok=True)
    link = start / "agent-lsp"
    if not link.exists():
        link.symlink_to(PLUGIN)
    return f"require('agent-lsp').setup({opts})\n"


@VERSIONS
def test_packpath_install_edit_previewed_and_accepted(who, project, home, model):
    """Installed as a start package: the edit's diff is on screen while Neovim asks, the
    accepted edit is in the buffer and on disk and the buffer is saved (not modified)."""
    editor = require(who)
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        reply("Fixed add."),
    )
    plan = {"steps": [{"step": "attach"}, {"step": "keys", "keys": ":AgentTask fix add<CR>"},
                      {"step": "wait_message", "text": "agent: Fixed add."}, {"step": "snapshot", "name": "after"}],
            "pick": [], "confirm": ["y"]}
    s = run_nvim(editor, None, project / "calc.py", plan, home, model.base_url, init_lua=packpath_init(home))
    assert_accepted_after_preview(s, project / "calc.py", FIXED_ADD)
    assert model.violations == []


@VERSIONS
def test_rtp_install_with_options_filetypes_and_own_confirm(who, project, home, model):
    """From 'runtimepath' with options: `filetypes` leaves other files alone, a person's
    own `confirm` is the one asked, and its "no" leaves buffer and disk untouched."""
    editor = require(who)
    (project / "notes.txt").write_text("hello\n")
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        reply("Left it."),
    )
    opts = ("{ filetypes = { 'python' }, keymaps = false, confirm = function(q) "
            "vim.g.asked = q; return false end }")
    init = rtp_init(opts) + (
        "vim.api.nvim_create_autocmd('User', { pattern = 'AgentProbe', callback = function()\n"
        "  vim.g.probe = vim.fn.maparg('<leader>af', 'n') end })\n"
    )
    plan = {"steps": [{"step": "attach"}, {"step": "keys", "keys": ":AgentTask fix add<CR>"},
                      {"step": "wait_message", "text": "agent: Left it."},
                      {"step": "keys", "keys": ":doautocmd User AgentProbe<CR>"},
                      {"step": "keys", "keys": ":echomsg 'asked=' . g:asked . ' map=' . g:probe . '.'<CR>"},
                      {"step": "keys", "keys": ":edit notes.txt<CR>"},
                      {"step": "sleep", "ms": 1500},
                      {"step": "keys", "keys": ":echomsg 'clients=' . len(v:lua.vim.lsp.buf_get_clients(0))<CR>"},
                      {"step": "sleep", "ms": 300}],
            "pick": [], "confirm": []}
    s = run_nvim(editor, None, project / "calc.py", plan, home, model.base_url, init_lua=init)
    assert not s.result.get("errors") and not s.result.get("timed_out"), describe(s)
    messages = s.result["messages"]
    assert "asked=Apply agent: edit_file calc.py? map=." in messages, describe(s)  # no key map: maparg is ''
    assert "clients=0" in messages, describe(s)  # notes.txt is not python
    assert (project / "calc.py").read_text() == CALC
    assert told(model, "rejected"), describe(s)


@VERSIONS
def test_setup_after_the_file_is_open_attaches_it(who, project, home, model):
    """Lazy-loading: setup() runs after calc.py is open (as lazy.nvim's VeryLazy does: from
    a timer, after start-up); it is attached all the same, and setup() twice leaves one
    FileType autocmd and one client."""
    editor = require(who)
    model.add(reply("total adds up xs."))
    init = (f"vim.opt.rtp:prepend({json.dumps(str(PLUGIN))})\n"
            "vim.defer_fn(function() require('agent-lsp').setup({}); require('agent-lsp').setup({}) end, 300)\n")
    plan = {"steps": [{"step": "attach"}, {"step": "keys", "keys": ":AgentTask what does total do<CR>"},
                      {"step": "wait_message", "text": "agent: total adds up xs."},
                      {"step": "keys", "keys": ":echomsg 'autocmds=' . len(nvim_get_autocmds({'group': 'agent-lsp'})) "
                                               ". ' clients=' . len(v:lua.vim.lsp.buf_get_clients(0))<CR>"},
                      {"step": "sleep", "ms": 300}],
            "pick": [], "confirm": []}
    s = run_nvim(editor, None, project / "calc.py", plan, home, model.base_url, init_lua=init)
    assert not s.result.get("errors") and not s.result.get("timed_out"), describe(s)
    assert "autocmds=1 clients=1" in s.result["messages"], describe(s)


def _headless(editor, home: Path, model_url: str, init: str, *cmds: str, env_extra: dict | None = None,
              timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(session_env(home, model_url), **(env_extra or {}))
    init_file = home / ".config" / "nvim" / "init.lua"
    init_file.parent.mkdir(parents=True, exist_ok=True)
    init_file.write_text(init)
    argv = [editor.path, "--headless", "-i", "NONE", "-n"]
    for c in cmds:
        argv += ["-c", c]
    argv += ["-c", "qa!"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                          stdin=subprocess.DEVNULL, cwd=home)


@VERSIONS
def test_help_tags_are_valid_and_help_opens(who, home, model):
    """`:helptags` on doc/ gives no error and `:help agent-lsp` (and a command's tag) opens the file."""
    editor = require(who)
    copy = home / "nvim-client"
    shutil.copytree(PLUGIN, copy)  # helptags writes doc/tags: never into the repository
    out = home / "help.txt"
    init = f"vim.opt.rtp:prepend({json.dumps(str(copy))})\n"
    p = _headless(editor, home, model.base_url, init, f"helptags {copy / 'doc'}", "help agent-lsp",
                  f"call writefile([expand('%:t'), getline('.')], '{out}')", "help :AgentFix",
                  f"call writefile([expand('%:t'), getline('.')], '{out}', 'a')")
    assert p.returncode == 0 and "E" not in "".join(l[:1] for l in p.stderr.splitlines()), p.stderr
    tags = (copy / "doc" / "tags").read_text().splitlines()
    assert len(tags) == len({t.split("\t")[0] for t in tags}) and ":AgentTask\tagent-lsp.txt\t/*:AgentTask*" in tags
    lines = out.read_text().splitlines()
    assert lines[0] == "agent-lsp.txt" and "*agent-lsp*" in lines[1], lines
    assert lines[2] == "agent-lsp.txt" and "*:AgentFix*" in lines[3], lines


def _checkhealth(editor, home: Path, url: str, env_extra: dict | None = None) -> str:
    out = home / "health.txt"
    p = _headless(editor, home, url, rtp_init(), "checkhealth agent-lsp", f"write! {out}", env_extra=env_extra)
    assert out.is_file(), p.stderr
    return out.read_text()


@VERSIONS
def test_checkhealth_reports_server_endpoint_model_and_capabilities(who, home, model):
    """Against the scripted model: the version, the endpoint answering and listing the
    model, the capabilities; the API key is said to be set and never shown."""
    editor = require(who)
    secret = "sk-health-check-secret-4242"
    text = _checkhealth(editor, home, model.base_url, {"AGENT_API_KEY": secret})
    assert "agent-lsp 0." in text, text
    assert "lists scripted-model" in text, text
    assert "API key set" in text and secret not in text, text
    assert "changeAnnotationSupport" in text and "saveDocument" in text, text
    assert "ERROR" not in text, text


@VERSIONS
def test_checkhealth_names_an_unreachable_endpoint_and_a_missing_server(who, home, model, tmp_path):
    editor = require(who)
    text = _checkhealth(editor, home, "http://127.0.0.1:9/v1")
    assert "cannot be reached" in text and "AGENT_BASE_URL" in text, text
    # no agent-lsp on PATH: said so, with the way out
    bare = dict(PATH="/usr/bin:/bin")
    text = _checkhealth(editor, tmp_path / "home2", model.base_url, bare)
    assert "agent-lsp is not on PATH" in text, text
