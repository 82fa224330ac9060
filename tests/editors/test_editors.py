"""Neovim 0.7, Neovim 0.12 and Emacs 28 + eglot 1.9, driven the way a person uses them.

Each test starts the real editor with the plugin (nvim-client/) or package
(emacs-client/) installed as docs/editors.md says, opens
calc.py, and goes through the person's path with the scripted model behind the
server: a linter's diagnostic on line 2, the code-action menu or the documented fix
mapping, the edit confirmations and the command question answered in the editor's own
prompts, then the buffer, the file on disk and what the agent was told are checked.

calc.py has two bugs: add() subtracts and total() starts at 1. The "fix" task edits
the same file twice, runs a command that imports both fixes from disk, and the person
then saves: no prompt, no warning, buffer and disk the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from tests.editors.conftest import CALC
from tests.editors.harness import describe, prompts, require, run_emacs, run_nvim, told
from tests.scripted_model import reply, tool_call

FIXED = CALC.replace("return a - b", "return a + b").replace("s = 1", "s = 0")
LINT = {"lnum": 1, "col": 11, "end_col": 16, "message": "add subtracts", "source": "lint", "severity": 2}
CHECK = "python3 -c 'import calc; print(calc.add(2, 3), calc.total([1, 2]))'"


@dataclass(frozen=True)
class Person:
    """How a person drives one editor with the documented config."""

    key: str
    config: str | None  # the Neovim plugin's setup() options; Emacs: (agent-lsp-setup)
    code_actions: dict[str, Any]  # the keys that open the code-action menu
    fix: dict[str, Any]  # the keys that reach "Fix with agent" for a linter's diagnostic
    fix_picks: list[str]  # menu choices on the way there
    mapping: dict[str, Any]  # the documented mapping passing every diagnostic on the line
    mapping_picks: list[str]
    task: Callable[[str], dict[str, Any]]  # the palette: a task typed by the person
    save: list[dict[str, Any]] = field(default_factory=list)
    linter_in_code_actions: bool = False  # does the client send other sources' diagnostics?


def _nvim_keys(keys: str) -> dict[str, Any]:
    return {"step": "keys", "keys": keys}


PEOPLE = {
    "nvim07": Person(
        "nvim07",
        "{}",
        code_actions=_nvim_keys("\\aa"),
        fix=_nvim_keys("\\aa"),  # 0.7 sends every diagnostic on the line: the menu has the fix
        fix_picks=["Fix with agent: add subtracts"],
        mapping=_nvim_keys("\\af"),  # :AgentFix, a menu: 0.7 has no `apply`
        mapping_picks=["Fix with agent: add subtracts"],
        task=lambda t: _nvim_keys(f":AgentTask {t}<CR>"),
        save=[{"step": "checktime"}, {"step": "write"}, {"step": "snapshot", "name": "after_save"}],
        linter_in_code_actions=True,
    ),
    "nvim012": Person(
        "nvim012",
        "{}",
        code_actions=_nvim_keys("gra"),  # Neovim's own default mapping
        fix=_nvim_keys("\\af"),  # :AgentFix, one diagnostic: applied without a menu
        fix_picks=[],
        mapping=_nvim_keys("\\af"),
        mapping_picks=[],
        task=lambda t: _nvim_keys(f":AgentTask {t}<CR>"),
        save=[{"step": "checktime"}, {"step": "write"}, {"step": "snapshot", "name": "after_save"}],
    ),
    "emacs": Person(
        "emacs",
        None,
        code_actions={"step": "keys", "keys": "C-c a a"},
        fix={"step": "keys", "keys": "C-c a f"},  # agent-lsp-fix, one diagnostic: no menu
        fix_picks=[],
        mapping={"step": "keys", "keys": "C-c a f"},
        mapping_picks=[],
        task=lambda t: {"step": "keys", "keys": "C-c a t", "text": t},
        save=[{"step": "keys", "keys": "C-x C-s"}, {"step": "snapshot", "name": "after_save"}],
    ),
}


def session(person: Person, project: Path, home: Path, model, steps, *, pick=(), confirm=(), timeout=40):
    editor = require(person.key)
    plan = {"steps": steps, "pick": list(pick), "confirm": list(confirm)}
    calc = project / "calc.py"
    if person.key == "emacs":
        return run_emacs(editor, calc, plan, home, model.base_url, timeout=timeout)
    return run_nvim(editor, person.config, calc, plan, home, model.base_url, timeout=timeout)


def ok(s) -> None:
    r = s.result
    assert not r.get("errors") and not r.get("timed_out"), describe(s)


def on_screen(prompt: dict[str, Any], *lines: str) -> bool:
    """Were these lines visible, in one window, while the person was asked?"""
    return any(all(ln in w["text"] for ln in lines) for w in prompt.get("screen") or [])


PREVIEW_1 = ("--- a/calc.py", "+++ b/calc.py", "@@ -1,", "-    return a - b", "+    return a + b", " def add(a, b):")
PREVIEW_2 = ("-    s = 1", "+    s = 0")


def lead_in(*more: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"step": "attach"},
        {"step": "diagnostics", "items": [LINT]},
        {"step": "cursor", "line": 2, "col": 11},  # on the squiggle
        *more,
    ]


EDITORS = pytest.mark.parametrize("who", list(PEOPLE))


@EDITORS
def test_fix_two_edits_accept_allow_then_save(who, project, home, model):
    """Fix with agent: two edits of calc.py accepted, the command allowed and run on the
    fixed file, the answer shown; then the person saves without any prompt."""
    person = PEOPLE[who]
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("edit_file", {"path": "calc.py", "old": "    s = 1", "new": "    s = 0"}),
        tool_call("bash", {"command": CHECK}),
        reply("Fixed both: add adds and total starts at 0."),
    )
    s = session(
        person, project, home, model,
        lead_in(
            person.fix,
            {"step": "wait_message", "text": "agent: Fixed both"},
            {"step": "snapshot", "name": "after_task"},
            *person.save,
        ),
        pick=[*person.fix_picks, "Allow once"],
        confirm=["y", "y"],
    )
    ok(s)
    r = s.result
    # the person was asked twice about an edit of calc.py, once about the command
    asked = prompts(r, "confirm")
    assert len(asked) == 2 and all("calc.py" in p["title"] for p in asked), describe(s)
    # each question was asked with the edit's diff on screen, and the answer closed it
    assert on_screen(asked[0], *PREVIEW_1) and on_screen(asked[1], *PREVIEW_2), describe(s)
    assert r["after_task_windows"] == 1, describe(s)
    command_q = [p for p in prompts(r, "list") if "wants to run" in p["title"]]
    assert len(command_q) == 1 and CHECK in command_q[0]["title"], describe(s)
    # both edits accepted and on disk before the command ran: it printed 5 3
    assert not told(model, "rejected") and not told(model, "stale"), describe(s)
    assert told(model, "5 3"), describe(s)
    # buffer, disk and the editor's own bookkeeping in step
    assert r["after_task"]["text"] == FIXED, describe(s)
    assert (project / "calc.py").read_text() == FIXED
    assert r["after_task"]["modified"] is False, describe(s)
    if who == "emacs":
        assert r["after_task"]["modtime_ok"] is True, describe(s)
        assert not prompts(r, "yes-or-no") and not prompts(r, "supersession"), describe(s)
        assert "changed since visited" not in r["messages"], describe(s)
    else:
        assert r["checktime"]["prompted"] is False and "W1" not in r["checktime"]["said"], describe(s)
        assert r["write"]["prompted"] is False and r["write"]["ok"], describe(s)
        assert "WARNING" not in r["write"]["said"], describe(s)
    assert r["after_save"]["modified"] is False, describe(s)
    assert r["after_save"]["text"] == FIXED and (project / "calc.py").read_text() == FIXED
    assert "agent: Fixed both" in r["messages"]
    assert not r["unanswered"]["pick"] and not r["unanswered"]["confirm"], describe(s)
    assert model.violations == []


@EDITORS
def test_fix_decline_edit_and_deny_command(who, project, home, model):
    """The person says no to the edit and to the command: buffer and file untouched,
    the command never ran, the agent was told both. (Reached through the documented
    "fix any diagnostic" mapping.)"""
    person = PEOPLE[who]
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": "touch ran.txt"}),
        reply("Left it as it is."),
    )
    s = session(
        person, project, home, model,
        lead_in(
            person.mapping,
            {"step": "wait_message", "text": "agent: Left it"},
            {"step": "snapshot", "name": "after_task"},
        ),
        pick=[*person.mapping_picks, "Deny"],
        confirm=["n"],
    )
    ok(s)
    r = s.result
    assert len(prompts(r, "confirm")) == 1, describe(s)
    assert on_screen(prompts(r, "confirm")[0], *PREVIEW_1), describe(s)
    assert r["after_task_windows"] == 1, describe(s)
    first = model.requests[0]["messages"][-1]["content"]
    assert "add subtracts" in first and "lint" in first, describe(s)  # fixDiagnostic got the linter's diagnostic
    assert r["after_task"]["text"] == CALC and r["after_task"]["modified"] is False, describe(s)
    assert (project / "calc.py").read_text() == CALC
    assert not (project / "ran.txt").exists()
    assert told(model, "rejected this edit"), describe(s)
    assert told(model, "denied"), describe(s)
    assert "agent: Left it as it is." in r["messages"]
    assert model.violations == []


@EDITORS
def test_palette_task_answer_shown(who, project, home, model):
    """agentLsp.runTask through the editor's own execute-command path; the answer is shown."""
    person = PEOPLE[who]
    model.add(reply("total adds up xs, starting from 1."))
    s = session(
        person, project, home, model,
        [
            {"step": "attach"},
            person.task("what does total do"),
            {"step": "wait_message", "text": "agent: total adds up xs"},
            {"step": "snapshot", "name": "after_task"},
        ],
    )
    ok(s)
    first = model.requests[0]["messages"][-1]["content"]
    assert "what does total do" in first and "calc.py" in first
    assert "agent: total adds up xs, starting from 1." in s.result["messages"]
    assert s.result["after_task"]["text"] == CALC
    assert model.violations == []


@EDITORS
def test_linter_diagnostic_reaches_agent_through_range_action(who, project, home, model):
    """A linter's warning: Neovim >= 0.10 and eglot send only this server's diagnostics
    with the code-action request, so the menu offers "Ask agent about line 2" (Neovim
    0.7 also offers the fix); picking it gives the agent the line."""
    person = PEOPLE[who]
    model.add(reply("Line 2 subtracts b from a, but the function is called add."))
    s = session(
        person, project, home, model,
        lead_in(
            person.code_actions,
            {"step": "wait_message", "text": "agent: Line 2 subtracts"},
        ),
        pick=["Ask agent about line 2"],
    )
    ok(s)
    (menu,) = prompts(s.result, "list")
    assert "Ask agent about line 2" in menu["items"], describe(s)
    fixes = [i for i in menu["items"] if i.startswith("Fix with agent")]
    assert fixes == (["Fix with agent: add subtracts"] if person.linter_in_code_actions else []), describe(s)
    first = model.requests[0]["messages"][-1]["content"]
    assert "line 2 of calc.py" in first and "return a - b" in first


def test_eglot_long_task_neither_freezes_nor_times_out(project, home, model):
    """eglot runs executeCommand synchronously with a 10 s timeout. With the documented
    setup (detachCommands) a task whose model answers after 12 s leaves Emacs free at
    once and its answer still arrives, with no "Timed out"."""
    model.add(reply("Slow but sure.", delay=12))
    person = PEOPLE["emacs"]
    s = session(
        person, project, home, model,
        [
            {"step": "attach"},
            person.task("take your time"),
            {"step": "watch"},
            {"step": "wait_message", "text": "agent: Slow but sure.", "ms": 30000},
            {"step": "watch_report"},
        ],
        timeout=45,
    )
    ok(s)
    r = s.result
    watch = r["watch"]
    # free at once, not after the 10 s a synchronous command would hold it
    assert "idle" in watch and watch["idle"] - watch["start"] < 5000, describe(s)
    answered = next(st["t"] for st in r["steps"] if st["step"] == "wait_message")
    assert answered - watch["start"] > 11000, describe(s)
    assert "timed out" not in r["messages"].lower(), describe(s)
    assert model.violations == []


@EDITORS
def test_new_file_preview_shows_its_first_lines(who, project, home, model):
    """A new file's preview is its first lines, all added; accepted, it is on disk."""
    person = PEOPLE[who]
    model.add(
        tool_call("write_file", {"path": "notes.txt", "content": "first line\nsecond line\n"}),
        reply("Wrote the notes."),
    )
    s = session(
        person, project, home, model,
        [{"step": "attach"}, person.task("write notes"), {"step": "wait_message", "text": "agent: Wrote the notes."}],
        confirm=["y"],
    )
    ok(s)
    (asked,) = prompts(s.result, "confirm")
    assert "notes.txt" in asked["title"], describe(s)
    assert on_screen(asked, "new file: notes.txt", "+first line", "+second line"), describe(s)
    assert not told(model, "error"), [m.get("content") for m in model.requests[-1]["messages"] if m.get("role") == "tool"]
    assert (project / "notes.txt").read_text() == "first line\nsecond line\n"
    assert model.violations == []
