"""Emacs 28 + lsp-mode 8.0.0, alone and beside `ruff server`, through the person's path.

Each test starts a real `emacs -nw calc.py` whose init.el does what a person does:
lsp-mode from python-mode-hook and `(require 'agent-lsp-lsp-mode)` from emacs-client/
(plus ruff's `lsp-register-client` when ruff runs beside). The person works only with
keys: `C-c a t` for a task, `C-c a a` (lsp-execute-code-action) for the menu with
"Accept agent edit" / "Reject agent edit" / "Fix with agent: ...", the command question
in the minibuffer, `C-c a c` to cancel. Then the buffer, the file, what each server
heard (lsp-mode's own `lsp-log-io` record) and what the agent was told are checked.
"""

from __future__ import annotations

import re

import pytest

from tests.editors.conftest import CALC
from tests.editors.harness import describe, prompts, told
from tests.editors.lsp_mode import io_log, run_lsp_mode
from tests.scripted_model import reply, tool_call

FIXED = CALC.replace("return a - b", "return a + b")
CHECK = "python3 -c 'import calc; print(calc.add(2, 3))'"
UNUSED = "import os\n"
F401 = "`os` imported but unused"


def ok(s) -> None:
    r = s.result
    assert not r.get("errors") and not r.get("timed_out"), describe(s)


def in_step(s, project, text: str) -> None:
    """Buffer and disk hold `text`; Emacs thinks the buffer saved and the file its own."""
    r = s.result
    assert r["after"]["text"] == text, describe(s)
    assert (project / "calc.py").read_text() == text
    assert r["after"]["modified"] is False and r["after"]["modtime_ok"] is True, describe(s)
    assert not prompts(r, "yes-or-no") and not prompts(r, "supersession") and not prompts(r, "confirm"), describe(s)


def commands_sent(log: str) -> list[str]:
    """The commands lsp-mode sent in workspace/executeCommand requests, per its io log."""
    return re.findall(r'"command":\s*"([^"]+)"', log.split("Sending request 'workspace/executeCommand", 1)[-1]) \
        if "Sending request 'workspace/executeCommand" in log else []


def review(line: int, pick: str) -> list[dict]:
    return [{"step": "wait_diagnostics", "server": "agent-lsp", "text": "agent edit"},
            {"step": "cursor", "line": line, "col": 4},
            {"step": "keys", "keys": "C-c a a"}]


def test_alone_accept_allow_progress_answer(project, home, model):
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": CHECK}),
        reply("Fixed add."),
    )
    steps = [{"step": "attach", "servers": ["agent-lsp"]},
             {"step": "keys", "keys": "C-c a t", "text": "fix add"},
             *review(2, "Accept agent edit"),
             {"step": "wait_message", "text": "agent: Fixed add."},
             {"step": "snapshot", "name": "after"}]
    s = run_lsp_mode(project / "calc.py", {"steps": steps, "pick": ["Accept agent edit", "Allow once"]},
                     home, model.base_url)
    ok(s)
    r = s.result
    menu, question = prompts(r, "list")
    assert {"Accept agent edit", "Reject agent edit"} <= set(menu["items"]), describe(s)
    assert "wants to run" in question["title"] and CHECK in question["title"], describe(s)
    in_step(s, project, FIXED)
    assert told(model, "5") and not told(model, "rejected"), describe(s)  # the command ran on the fixed file
    log = io_log(home, "agent-lsp")
    assert "Received notification '$/progress'" in log and '"kind": "begin"' in log and '"kind": "end"' in log
    assert "Timeout" not in r["messages"] and "Cancelled" not in r["messages"], describe(s)
    assert not r["unanswered"]["pick"]
    assert model.violations == []


def test_alone_reject_and_deny(project, home, model):
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": "touch ran.txt"}),
        reply("Left it as it is."),
    )
    steps = [{"step": "attach", "servers": ["agent-lsp"]},
             {"step": "keys", "keys": "C-c a t", "text": "fix add"},
             *review(2, "Reject agent edit"),
             {"step": "wait_message", "text": "agent: Left it as it is."},
             {"step": "snapshot", "name": "after"}]
    s = run_lsp_mode(project / "calc.py", {"steps": steps, "pick": ["Reject agent edit", "Deny"]},
                     home, model.base_url)
    ok(s)
    in_step(s, project, CALC)
    assert not (project / "ran.txt").exists()
    assert told(model, "rejected") and told(model, "denied"), describe(s)


@pytest.mark.parametrize("answer", ["accept", "reject"])
def test_beside_ruff_fix_a_ruff_diagnostic(project, home, model, answer):
    """ruff's F401 reaches the agent through "Fix with agent"; after Accept ruff itself sees
    the edit (its warning goes), after Reject it keeps it; no agentLsp.* command reaches ruff."""
    (project / "calc.py").write_text(UNUSED + CALC)
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": UNUSED, "new": ""}),
        reply("Removed the unused import." if answer == "accept" else "Kept it."),
    )
    pick = "Accept agent edit" if answer == "accept" else "Reject agent edit"
    steps = [{"step": "attach", "servers": ["agent-lsp", "ruff"]},
             {"step": "wait_diagnostics", "server": "ruff", "text": F401},
             {"step": "cursor", "line": 1, "col": 7},
             {"step": "keys", "keys": "C-c a a"},
             *review(1, pick),
             {"step": "wait_message", "text": "agent: Removed" if answer == "accept" else "agent: Kept it."},
             {"step": "wait_diagnostics", "server": "ruff", "text": F401, "absent": answer == "accept",
              "name": "ruff_after"},
             {"step": "snapshot", "name": "after"}]
    s = run_lsp_mode(project / "calc.py", {"steps": steps, "pick": [f"Fix with agent: {F401}", pick]},
                     home, model.base_url, ruff=True)
    ok(s)
    r = s.result
    fix_menu = prompts(r, "list")[0]
    assert f"Fix with agent: {F401}" in fix_menu["items"], describe(s)
    first = model.requests[0]["messages"][-1]["content"]
    assert F401 in first and "F401" in first, first  # ruff's own diagnostic, code and all
    in_step(s, project, CALC if answer == "accept" else UNUSED + CALC)
    ruff = io_log(home, "ruff")
    assert ruff, "no io log for ruff"
    assert not [c for c in commands_sent(ruff) if c.startswith("agentLsp.")], commands_sent(ruff)
    assert "Ruff encountered a problem" not in r["messages"], describe(s)
    if answer == "accept":
        assert ruff.count("Sending notification 'textDocument/didChange'") >= 1, "ruff never heard the edit"
    assert model.violations == []


def test_long_task_is_not_cancelled_and_emacs_stays_free(project, home, model):
    """lsp-mode's lsp-response-timeout is 10 s: a 12 s task must neither block Emacs nor be cancelled."""
    model.add(reply("Slow but sure.", delay=12))
    steps = [{"step": "attach", "servers": ["agent-lsp"]},
             {"step": "keys", "keys": "C-c a t", "text": "take your time"},
             {"step": "watch"},
             {"step": "wait_message", "text": "agent: Slow but sure.", "ms": 30000},
             {"step": "watch_report"}]
    s = run_lsp_mode(project / "calc.py", {"steps": steps}, home, model.base_url, timeout=50)
    ok(s)
    r = s.result
    # free at once, not after the 10 s a synchronous command would hold it
    assert "idle" in r["watch"] and r["watch"]["idle"] - r["watch"]["start"] < 5000, describe(s)
    answered = next(st["t"] for st in r["steps"] if st["step"] == "wait_message")
    assert answered - r["watch"]["start"] > 11000, describe(s)
    assert "Timeout" not in r["messages"] and "agent: Cancelled" not in r["messages"], describe(s)


def test_cancel_from_emacs(project, home, model):
    model.add(reply("never", stall=30))
    steps = [{"step": "attach", "servers": ["agent-lsp"]},
             {"step": "keys", "keys": "C-c a t", "text": "wait"},
             {"step": "wait_progress", "server": "agent-lsp"},  # the task runs (its progress is shown)
             {"step": "keys", "keys": "C-c a c"},
             {"step": "wait_message", "text": "agent: Cancelled", "ms": 15000},
             {"step": "snapshot", "name": "after"}]
    s = run_lsp_mode(project / "calc.py", {"steps": steps}, home, model.base_url)
    ok(s)
    in_step(s, project, CALC)


def test_stock_registration_beside_ruff_is_not_stalled(project, home, model):
    """lsp-mode's documented `lsp-register-client` for agent-lsp, no package: its commands are
    synchronous (10 s timeout) and its read loop drops what shares a read with an answer.
    The server detaches commands for lsp-mode, keeps every message out of an answer's read,
    and its Accept carries the edit: the task runs to its end and ruff hears the edit."""
    (project / "calc.py").write_text(UNUSED + CALC)
    model.add(
        tool_call("read_file", {"path": "calc.py"}),
        tool_call("edit_file", {"path": "calc.py", "old": UNUSED, "new": ""}),
        reply("Removed the unused import.", delay=11),  # past lsp-response-timeout
    )
    steps = [{"step": "attach", "servers": ["agent-lsp", "ruff"]},
             {"step": "wait_diagnostics", "server": "ruff", "text": F401},
             {"step": "cursor", "line": 1, "col": 7},
             {"step": "keys", "keys": "M-x lsp-execute-code-action RET"},
             {"step": "wait_diagnostics", "server": "agent-lsp", "text": "agent edit"},
             {"step": "cursor", "line": 1, "col": 4},
             {"step": "keys", "keys": "M-x lsp-execute-code-action RET"},
             {"step": "wait_diagnostics", "server": "ruff", "text": F401, "absent": True, "name": "ruff_after"},
             {"step": "wait_message", "text": "agent: Removed the unused import.", "ms": 30000},
             {"step": "snapshot", "name": "after"}]
    s = run_lsp_mode(project / "calc.py", {"steps": steps, "pick": [f"Fix with agent: {F401}", "Accept agent edit"]},
                     home, model.base_url, package=False, ruff=True, timeout=60)
    ok(s)
    r = s.result
    assert r["after"]["text"] == CALC and (project / "calc.py").read_text() == CALC, describe(s)
    assert "Timeout while waiting" not in r["messages"] and "agent: Cancelled" not in r["messages"], describe(s)
    assert io_log(home, "ruff").count("Sending notification 'textDocument/didChange'") >= 1
    assert not told(model, "rejected") and not told(model, "stale"), describe(s)


def test_package_compiles_cleanly_and_installs(tmp_path):
    """Byte-compiles with warnings as errors, passes checkdoc, and installs with
    `package-install-file` beside the system's lsp-mode; then `(require 'agent-lsp-lsp-mode)`
    registers the add-on client."""
    from tests.editors.lsp_mode import PACKAGE_DIR, require

    emacs = require()
    import shutil
    import subprocess

    work = tmp_path / "pkg"
    work.mkdir()
    shutil.copy(PACKAGE_DIR / "agent-lsp-lsp-mode.el", work)
    env = {**__import__("os").environ, "HOME": str(tmp_path)}
    elpa = "(let ((default-directory \"/usr/share/emacs/site-lisp/elpa/\")) (normal-top-level-add-subdirs-to-load-path))"
    compiled = subprocess.run(
        [emacs, "--batch", "-Q", "--eval", f"(progn {elpa} (setq byte-compile-error-on-warn t) (push \"{work}\" load-path))",
         "-f", "batch-byte-compile", str(work / "agent-lsp-lsp-mode.el")],
        capture_output=True, text=True, timeout=120, env=env)
    assert compiled.returncode == 0 and (work / "agent-lsp-lsp-mode.elc").exists(), compiled.stderr
    checked = subprocess.run(
        [emacs, "--batch", "-Q", "--eval",
         f"(progn {elpa} (require 'checkdoc) (setq checkdoc-diagnostic-buffer \"*cd*\")"
         f" (with-current-buffer (find-file-noselect \"{work / 'agent-lsp-lsp-mode.el'}\") (checkdoc-current-buffer t))"
         " (princ (if (get-buffer \"*cd*\") (with-current-buffer \"*cd*\" (buffer-string)) \"\")))"],
        capture_output=True, text=True, timeout=120, env=env)
    problems = [ln for ln in checked.stdout.splitlines() if ln.strip() and not ln.startswith("***")]
    assert checked.returncode == 0 and not problems, checked.stdout + checked.stderr
    installed = subprocess.run(
        [emacs, "--batch", "--eval",
         f"(progn (package-initialize) (package-install-file \"{PACKAGE_DIR / 'agent-lsp-lsp-mode.el'}\")"
         " (require 'agent-lsp-lsp-mode)"
         " (let ((c (gethash 'agent-lsp lsp-clients))) (princ (format \"client:%s add-on:%s\" (and c t)"
         " (and c (lsp--client-add-on? c))))))"],
        capture_output=True, text=True, timeout=180, env=env)
    assert "client:t add-on:t" in installed.stdout, installed.stdout + installed.stderr
    assert (tmp_path / ".emacs.d" / "elpa").is_dir() and any((tmp_path / ".emacs.d" / "elpa").glob("agent-lsp-lsp-mode-*"))
