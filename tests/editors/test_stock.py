"""Stock editor setups and agent-lsp beside the person's own language server (issue 9).

The person's path in real editors on a pseudo-terminal, as in test_editors.py, but
with the configs people write before they read ours:

- Emacs 28 + eglot 1.9 with one `eglot-server-programs` entry, ("agent-lsp" "serve"):
  the server recognises eglot (1.9 sends no clientInfo), detaches commands, reviews
  each edit inline (eglot 1.9 cannot preview one) and writes accepted edits to disk;
- Neovim 0.12 with `vim.lsp.start{cmd={'agent-lsp','serve'}}`: Neovim's own prompts;
- Emacs with the emacs-client/ package and `agent-lsp-beside`: agent-lsp and PyPI ruff's
  `ruff server` in one eglot connection through rassumfrassum (`rass`);
- Neovim with the nvim-client/ plugin and `ruff server` as a second client of the buffer.

app.py imports os without using it: ruff reports F401 on line 1, the agent removes
the import, ruff's diagnostic goes away.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.editors.conftest import CALC
from tests.editors.harness import (
    HERE, Editor, _run_in_terminal, describe, emacs_package_init, nvim_plugin_init, prompts, require, session_env,
    told,
)
from tests.scripted_model import reply, tool_call

FIXED = CALC.replace("return a - b", "return a + b").replace("s = 1", "s = 0")
CHECK = "python3 -c 'import calc; print(calc.add(2, 3), calc.total([1, 2]))'"

APP = "import os\n\n\ndef add(a, b):\n    return a + b\n"
APP_FIXED = "def add(a, b):\n    return a + b\n"
F401 = "`os` imported but unused"
APP_CHECK = "python3 -c 'import app; print(app.add(2, 3))'"

STOCK_EGLOT = """;;; init.el --- a person's stock eglot: one entry, nothing of agent-lsp's  -*- lexical-binding: t -*-
(require 'eglot)
(add-to-list 'eglot-server-programs '(python-mode "agent-lsp" "serve"))
(add-hook 'python-mode-hook #'eglot-ensure)
"""

STOCK_NVIM = """-- a person's init.lua: the stock client, nothing of agent-lsp's
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function()
    vim.lsp.start({ cmd = { 'agent-lsp', 'serve' } })
  end,
})
"""

NVIM_WITH_RUFF = """-- a person's init.lua: their own ruff server, and agent-lsp's plugin
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function(args)
    vim.lsp.start({ name = 'ruff', cmd = { 'ruff', 'server' },
                    root_dir = vim.fs.dirname(vim.api.nvim_buf_get_name(args.buf)) })
  end,
})
""" + nvim_plugin_init()

NVIM_QUIET = (
    "-- (tests only: skip the slow search for Python/Ruby/Node providers)\n"
    "vim.g.loaded_python3_provider = 0\nvim.g.loaded_ruby_provider = 0\n"
    "vim.g.loaded_node_provider = 0\nvim.g.loaded_perl_provider = 0\n"
)


def emacs_init_beside() -> str:
    return (
        ";;; init.el --- agent-lsp beside ruff, through rass  -*- lexical-binding: t -*-\n"
        + emacs_package_init("(setq agent-lsp-beside '((python-mode \"ruff\" \"server\")))\n")
    )


def run_emacs_init(editor: Editor, file: Path, plan: dict[str, Any], home: Path, model_url: str, init_el: str,
                   timeout: float = 45):
    env = session_env(home, model_url)
    init = home / ".emacs.d" / "init.el"
    init.parent.mkdir(parents=True, exist_ok=True)
    (init.parent / "early-init.el").write_text("(setq native-comp-deferred-compilation nil)\n")
    init.write_text(init_el)
    argv = [editor.path, "-nw", str(file), "-l", str(HERE / "emacs_driver.el")]
    return _run_in_terminal(argv, env, file, plan, home, timeout)


def run_nvim_init(editor: Editor, file: Path, plan: dict[str, Any], home: Path, model_url: str, init_lua: str,
                  timeout: float = 45):
    env = session_env(home, model_url)
    init = home / ".config" / "nvim" / "init.lua"
    init.parent.mkdir(parents=True, exist_ok=True)
    init.write_text(init_lua + NVIM_QUIET)
    argv = [editor.path, "-c", f"luafile {HERE / 'nvim_driver.lua'}", str(file)]
    return _run_in_terminal(argv, env, file, plan, home, timeout)


def ok(s) -> None:
    r = s.result
    assert not r.get("errors") and not r.get("timed_out"), describe(s)


def events(home: Path) -> str:
    """eglot's events buffer (every message both ways), written by the driver at the end."""
    log = home / "eglot-events.log"
    return log.read_text() if log.is_file() else ""


def need_tools(*names: str) -> None:
    """ruff and rass come with the dev extra, next to agent-lsp."""
    bindir = Path(sys.executable).parent
    for name in names:
        if not (bindir / name).exists() and not shutil.which(name):
            pytest.fail(f"{name} not found: pip install -e '.[dev]' installs it")


M_X = {"step": "keys", "keys": "M-x", "text": "eglot-code-actions"}  # no key map in a stock setup


# ---------------------------------------------------------------------------- stock eglot


def test_stock_eglot_accept_in_the_inline_review_allow(project, home, model):
    """Only ("agent-lsp" "serve"): eglot 1.9 is recognised and commands detach; each edit
    waits as a diagnostic, the person picks "Accept agent edit" from eglot's code actions
    and answers eglot's own y/n; both edits are judged accepted and are on disk before the
    command runs; the log said once that Emacs may ask "changed since visited", and it
    does on the next save."""
    editor = require("emacs")
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("edit_file", {"path": "calc.py", "old": "    s = 1", "new": "    s = 0"}),
        tool_call("bash", {"command": CHECK}),
        reply("Fixed both: add adds and total starts at 0."),
    )
    plan = {
        "steps": [
            {"step": "attach", "any": True},
            {"step": "cursor", "line": 2, "col": 11},
            M_X,  # -> Ask agent about line 2
            {"step": "wait_diagnostics", "text": "return a + b", "name": "review1"},
            M_X,  # -> Accept agent edit, then eglot's y/n
            {"step": "wait_diagnostics", "text": "s = 0", "name": "review2"},
            M_X,  # -> Accept agent edit, y/n; then the command question
            {"step": "wait_message", "text": "agent: Fixed both"},
            {"step": "snapshot", "name": "after_task"},
            {"step": "keys", "keys": "C-x C-s"},
            {"step": "sleep", "ms": 500},
        ],
        "pick": ["Ask agent about line 2", "Accept agent edit", "Accept agent edit", "Allow"],
        "confirm": ["y", "y"],
    }
    s = run_emacs_init(editor, project / "calc.py", plan, home, model.base_url, STOCK_EGLOT)
    ok(s)
    r = s.result
    menus = [p for p in prompts(r, "list") if "Accept agent edit" in p["items"]]
    assert len(menus) == 2 and all("Reject agent edit" in p["items"] for p in menus), describe(s)
    assert all(d["backend"].startswith("eglot") for d in r["review1"]["items"] if "agent edit" in d["text"]), describe(s)
    asked = prompts(r, "confirm")
    assert len(asked) == 2 and all("calc.py" in p["title"] for p in asked), describe(s)
    assert not told(model, "rejected") and not told(model, "stale"), describe(s)
    assert told(model, "5 3"), describe(s)  # both edits were on disk when the command ran
    assert r["after_task"]["text"] == FIXED and (project / "calc.py").read_text() == FIXED, describe(s)
    assert "timed out" not in r["messages"].lower(), describe(s)
    log = events(home)
    assert log.count(':message "agent-lsp: stock eglot (recognised by processId)') == 1, log[-3000:]
    assert log.count(':message "agent-lsp: wrote calc.py to disk behind its Emacs buffer') == 1, log[-3000:]
    assert "The package in emacs-client/ ((require 'agent-lsp) (agent-lsp-setup)) avoids this" in log
    # what the log line warned about, and nothing else: the second edit's "changed on disk"
    # (the driver answers no: keep the buffer) and the save's "changed since visited"
    questions = [p["title"] for p in prompts(r, "yes-or-no")]
    assert len(questions) == 2 and "changed on disk" in questions[0], describe(s)
    assert "changed since visited" in questions[1], describe(s)
    assert (project / "calc.py").read_text() == FIXED
    assert model.violations == []


def test_stock_eglot_reject_in_the_inline_review_deny(project, home, model):
    """The person picks "Reject agent edit" and denies the command: nothing changes, the
    command never runs, the agent is told both."""
    editor = require("emacs")
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": "touch ran.txt"}),
        reply("Left it as it is."),
    )
    plan = {
        "steps": [
            {"step": "attach", "any": True},
            {"step": "cursor", "line": 2, "col": 11},
            M_X,
            {"step": "wait_diagnostics", "text": "return a + b", "name": "review"},
            M_X,  # -> Reject agent edit; then the command question -> Deny
            {"step": "wait_message", "text": "agent: Left it"},
            {"step": "wait_diagnostics", "text": "agent edit", "absent": True, "name": "after"},
            {"step": "snapshot", "name": "after_task"},
        ],
        "pick": ["Ask agent about line 2", "Reject agent edit", "Deny"],
        "confirm": [],
    }
    s = run_emacs_init(editor, project / "calc.py", plan, home, model.base_url, STOCK_EGLOT)
    ok(s)
    r = s.result
    assert not prompts(r, "confirm"), describe(s)  # a rejected edit is never sent: no y/n
    assert r["after_task"]["text"] == CALC and r["after_task"]["modified"] is False, describe(s)
    assert (project / "calc.py").read_text() == CALC
    assert not (project / "ran.txt").exists()
    assert told(model, "rejected"), describe(s)
    assert told(model, "denied"), describe(s)
    assert model.violations == []


# ---------------------------------------------------------------------------- stock Neovim


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_stock_neovim_fix_flow_with_its_own_prompts(answer, project, home, model):
    """vim.lsp.start{cmd={'agent-lsp','serve'}} only: `gra`, "Ask agent about line 2",
    Neovim's own "Apply all changes?" and its vim.ui.select for the command."""
    editor = require("nvim012")
    yes = answer == "accept"
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": "python3 -c 'import calc; print(calc.add(2, 3))' > ran.txt"}),
        reply("Done." if yes else "Left it as it is."),
    )
    plan = {
        "steps": [
            {"step": "attach"},
            {"step": "cursor", "line": 2, "col": 11},
            {"step": "keys", "keys": "gra"},
            {"step": "wait_message", "text": "agent: Done." if yes else "agent: Left it", "ms": 25000},
            {"step": "snapshot", "name": "after_task"},
        ],
        "pick": ["Ask agent about line 2", "Allow" if yes else "Deny"],
        "confirm": ["y" if yes else "n"],
    }
    s = run_nvim_init(editor, project / "calc.py", plan, home, model.base_url, STOCK_NVIM)
    ok(s)
    r = s.result
    (asked,) = prompts(r, "confirm")
    assert "Apply all changes" in asked["title"] or "calc.py" in asked["title"], describe(s)
    command_q = [p for p in prompts(r, "list") if "wants to run" in p["title"]]
    assert len(command_q) == 1, describe(s)
    if yes:
        fixed = CALC.replace("return a - b", "return a + b")
        assert r["after_task"]["text"] == fixed and (project / "calc.py").read_text() == fixed, describe(s)
        assert (project / "ran.txt").read_text().strip() == "5", describe(s)  # the command saw the edit on disk
        assert not told(model, "rejected") and not told(model, "stale"), describe(s)
    else:
        assert r["after_task"]["text"] == CALC and (project / "calc.py").read_text() == CALC, describe(s)
        assert not (project / "ran.txt").exists()
        assert told(model, "rejected") and told(model, "denied"), describe(s)
    assert model.violations == []


# ---------------------------------------------------------------------------- beside ruff


@pytest.fixture
def app(project: Path) -> Path:
    (project / "app.py").write_text(APP)
    return project / "app.py"


def _beside_model(model, yes: bool) -> None:
    if yes:
        model.add(
            tool_call("edit_file", {"path": "app.py", "old": "import os\n\n\n", "new": ""}),
            tool_call("bash", {"command": APP_CHECK}),
            reply("Removed the unused import."),
        )
    else:
        model.add(
            tool_call("edit_file", {"path": "app.py", "old": "import os\n\n\n", "new": ""}),
            reply("Left it as it is."),
        )


def _beside_checks(s, r, model, app: Path, yes: bool) -> None:
    first = model.requests[0]["messages"][-1]["content"]
    assert "F401" in first and F401 in first, first  # ruff's diagnostic reached the agent
    (asked,) = prompts(r, "confirm")
    assert "app.py" in asked["title"], describe(s)  # the edit was asked about, in the editor's own prompt
    if yes:
        assert told(model, "5"), describe(s)  # the command ran on the fixed file
        assert not told(model, "rejected") and not told(model, "stale"), describe(s)
        assert r["after_task"]["text"] == APP_FIXED and app.read_text() == APP_FIXED, describe(s)
        assert r["after_task"]["modified"] is False, describe(s)  # saved by the editor (agentLsp/saveDocument)
    else:
        assert told(model, "rejected"), describe(s)
        assert r["after_task"]["text"] == APP and app.read_text() == APP, describe(s)
    assert model.violations == []


ANSWERS = pytest.mark.parametrize("answer", ["accept", "decline"])


@ANSWERS
def test_eglot_with_ruff_through_rass(answer, app, project, home, model):
    """The emacs-client/ package with agent-lsp-beside: one eglot connection to
    `rass -- ruff server -- agent-lsp serve`. ruff's F401 shows in the buffer, eglot's code
    actions offer "Fix with agent: <ruff's message>" beside ruff's own, the fix runs through
    the multiplexer (the package's diff and question, the command question), and ruff's
    diagnostic goes away (or, declined, nothing changes)."""
    editor = require("emacs")
    need_tools("rass", "ruff")
    yes = answer == "accept"
    _beside_model(model, yes)
    plan = {
        "steps": [
            {"step": "attach"},
            {"step": "wait_diagnostics", "text": F401, "name": "ruff"},
            {"step": "cursor", "line": 1, "col": 7},
            {"step": "keys", "keys": "C-c a a"},  # -> Fix with agent: `os` imported but unused
            {"step": "wait_message", "text": "agent: Removed the unused" if yes else "agent: Left it"},
            {"step": "wait_diagnostics", "text": F401, "absent": yes, "name": "after"},
            {"step": "snapshot", "name": "after_task"},
        ],
        "pick": [f"Fix with agent: {F401}", "Allow"] if yes else [f"Fix with agent: {F401}"],
        "confirm": ["y" if yes else "n"],
    }
    s = run_emacs_init(editor, app, plan, home, model.base_url, emacs_init_beside())
    ok(s)
    r = s.result
    ruff = [d for d in r["ruff"]["items"] if F401 in d["text"]]
    assert ruff and ruff[0]["line"] == 1 and "Ruff" in ruff[0]["text"], describe(s)
    menu = prompts(r, "list")[0]
    assert f"Fix with agent: {F401}" in menu["items"], describe(s)
    assert any(i.startswith("Ask agent about line 1") for i in menu["items"]), describe(s)
    assert any("unused import" in i.lower() and not i.startswith("Fix with agent") for i in menu["items"]), \
        describe(s)  # ruff's own quick fix, from the other server, in the same menu
    _beside_checks(s, r, model, app, yes)
    assert not prompts(r, "yes-or-no") and not prompts(r, "supersession"), describe(s)
    log = events(home)
    assert "Timeout for aggregation" not in log and "internal error" not in log, log[-3000:]


@ANSWERS
def test_neovim_with_ruff_as_a_second_client(answer, app, project, home, model):
    """The nvim-client/ plugin plus the person's own `ruff server`: two clients on one buffer.
    ruff's F401 shows, :AgentFix (<leader>af) hands it to the agent, Neovim answers in its
    own prompts, ruff's diagnostic goes away (or, declined, nothing changes)."""
    editor = require("nvim012")
    need_tools("ruff")
    yes = answer == "accept"
    _beside_model(model, yes)
    plan = {
        "steps": [
            {"step": "attach"},
            {"step": "wait_diagnostics", "text": F401, "name": "ruff"},
            {"step": "cursor", "line": 1, "col": 7},
            {"step": "keys", "keys": "\\af"},
            {"step": "wait_message", "text": "agent: Removed the unused" if yes else "agent: Left it", "ms": 25000},
            {"step": "wait_diagnostics", "text": F401, "absent": yes, "name": "after"},
            {"step": "snapshot", "name": "after_task"},
        ],
        "pick": ["Allow"] if yes else [],
        "confirm": ["y" if yes else "n"],
    }
    s = run_nvim_init(editor, app, plan, home, model.base_url, NVIM_WITH_RUFF)
    ok(s)
    r = s.result
    ruff = [d for d in r["ruff"]["items"] if F401 in d["message"]]
    assert ruff and ruff[0]["lnum"] == 0 and re.search("ruff", str(ruff[0]["source"]), re.I), describe(s)
    _beside_checks(s, r, model, app, yes)
