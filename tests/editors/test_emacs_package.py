"""emacs-client/ as an Emacs package: byte-compiled without warnings, checkdoc-clean, and
installed the ways Emacs 28 users install one (`package-install-file` of the folder, or
the folder on `load-path`), then set up with `(agent-lsp-setup)`.

The person's flows (edits previewed and accepted or declined, the command question,
the palette, a 12 s task) run in tests/editors/test_editors.py with this very package;
here is what only a package has.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path


from tests.editors.conftest import CALC
from tests.editors.harness import (HERE, REPO, _run_in_terminal, assert_accepted_after_preview, describe, require,
                                   session_env, told)
from tests.scripted_model import reply, tool_call

PACKAGE = REPO / "emacs-client"
FILES = ["agent-lsp.el", "agent-lsp-eglot.el"]
FIXED_ADD = CALC.replace("return a - b", "return a + b")


def run(editor, init: str, project: Path, home: Path, model, steps, confirm=(), timeout=40):
    """`emacs -nw calc.py` with INIT as the person's init.el, driven by emacs_driver.el."""
    env = session_env(home, model.base_url)
    init_file = home / ".emacs.d" / "init.el"
    init_file.parent.mkdir(parents=True, exist_ok=True)
    (init_file.parent / "early-init.el").write_text("(setq native-comp-deferred-compilation nil)\n")
    init_file.write_text(";;; init.el --- a person's init file  -*- lexical-binding: t -*-\n" + init)
    calc = project / "calc.py"
    plan = {"steps": steps, "pick": [], "confirm": list(confirm)}
    argv = [editor.path, "-nw", str(calc), "-l", str(HERE / "emacs_driver.el")]
    return _run_in_terminal(argv, env, calc, plan, home, timeout)


def _batch(editor, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = session_env(home, "http://127.0.0.1:9/v1")
    return subprocess.run([editor.path, "--batch", *args], capture_output=True, text=True, timeout=120,
                          env=env, stdin=subprocess.DEVNULL, cwd=home)


def test_byte_compiles_without_warnings_and_passes_checkdoc(home):
    editor = require("emacs")
    out = home / "build"
    out.mkdir()
    for f in FILES:
        (out / f).write_text((PACKAGE / f).read_text())
    p = _batch(editor, home, "--eval",
               f"(progn (add-to-list 'load-path {json.dumps(str(out))}) (setq byte-compile-error-on-warn t))",
               "-f", "batch-byte-compile", *[str(out / f) for f in FILES])
    assert p.returncode == 0 and "Warning" not in p.stderr, p.stderr
    checkdoc = (
        "(progn (require 'checkdoc) (setq checkdoc-diagnostic-buffer \"*cd*\")"
        f" (add-to-list 'load-path {json.dumps(str(out))})"
        " (dolist (f command-line-args-left) (with-current-buffer (find-file-noselect f) (checkdoc-current-buffer t)))"
        " (setq command-line-args-left nil)"
        " (with-current-buffer (get-buffer-create \"*cd*\") (princ (buffer-string))))"
    )
    p = _batch(editor, home, "--eval", checkdoc, *[str(out / f) for f in FILES])
    found = [ln for ln in p.stdout.splitlines() if ln.strip() and not ln.startswith("***")]
    assert p.returncode == 0 and found == [], p.stdout + p.stderr


STEPS_ACCEPT = [
    {"step": "attach"},
    {"step": "keys", "keys": "C-c a t", "text": "fix add"},
    {"step": "wait_message", "text": "agent: Fixed add."},
    {"step": "snapshot", "name": "after"},
]


def _accepted(s, project: Path, model) -> None:
    assert_accepted_after_preview(s, project / "calc.py", FIXED_ADD)
    assert not told(model, "rejected"), describe(s)


def test_load_path_install_then_setup(project, home, model):
    """The folder on `load-path`, `(require 'agent-lsp)`, `(agent-lsp-setup)`: eglot starts
    agent-lsp, the edit's diff is on screen while Emacs asks, the accepted edit is saved."""
    editor = require("emacs")
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
              reply("Fixed add."))
    init = (f"(add-to-list 'load-path {json.dumps(str(PACKAGE))})\n"
            "(require 'agent-lsp)\n(agent-lsp-setup)\n")
    s = run(editor, init, project, home, model, STEPS_ACCEPT, confirm=["y"])
    _accepted(s, project, model)


def test_package_install_file_then_autoloaded_setup(project, home, model):
    """`M-x package-install-file` on the folder (done here from init.el, once), then only
    `(agent-lsp-setup)`: the autoloads bring the package in, no `require`."""
    editor = require("emacs")
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
              reply("Fixed add."))
    elpa = home / "elpa"
    p = _batch(editor, home, "--eval",
               f"(progn (require 'package) (setq package-user-dir {json.dumps(str(elpa))} package-archives nil)"
               f" (package-initialize) (package-install-file {json.dumps(str(PACKAGE) + '/')}))")
    assert p.returncode == 0, p.stderr[-3000:]
    installed = sorted(elpa.glob("agent-lsp-*/"))
    assert installed and (installed[0] / "agent-lsp-autoloads.el").is_file(), p.stderr[-2000:]
    init = (f"(setq package-user-dir {json.dumps(str(elpa))})\n(package-initialize)\n"
            "(agent-lsp-setup)\n")
    s = run(editor, init, project, home, model, STEPS_ACCEPT, confirm=["y"])
    _accepted(s, project, model)
    assert not (PACKAGE / "agent-lsp.elc").exists()  # nothing compiled into the repository
