"""coc.nvim 0.0.82 in Vim 9 and in Neovim 0.12, set up with the documented coc-settings.json.

The person's path, typed in tmux and read back from the screen: the code action
"Ask agent about line 2" from coc's menu (`<Plug>(coc-codeaction-cursor)`), the
proposed edit shown in the buffer before anything changes (the inline review: coc's
own "Confirm edits" shows only a label, so the server reviews inline for coc), then
"Accept agent edit" or "Reject agent edit" from the same menu, the command question
in Vim's confirm(), the progress float and the answer on the message line.

Accepted: the edit is in the buffer once, on disk before the command the agent runs
next (the command imports it), and buffer and disk are in step: `:set modified?` says
nomodified and `:w` writes without "The file has been changed since reading it".
Declined: buffer and disk byte-identical, the command never ran.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.editors.coc_harness import TmuxEditor, require_coc
from tests.editors.conftest import CALC
from tests.editors.harness import told
from tests.scripted_model import reply, tool_call

FIXED_ADD = CALC.replace("return a - b", "return a + b")
CHECK = "python3 -c 'import calc; print(\"sum\", calc.add(2, 3))'"
EDITORS = pytest.mark.parametrize("who", ["vim9", "nvim012"])


def _menu_pick(ed: TmuxEditor, label: str, timeout: float = 30) -> str:
    """Open coc's code-action menu at the cursor (retrying while the server starts) and pick `label`."""
    screen = ""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ed.ex("echo ''")  # a stale "No code action available" must not count
        ed.type("\\ac")
        item = re.compile(r"(\d+)\. " + re.escape(label))
        try:
            screen = ed.wait(lambda s: item.search(s) or "No code action" in s, timeout=8)
        except AssertionError:
            continue
        m = item.search(screen)
        if m:
            ed.type(m.group(1))
            return screen
        time.sleep(1)  # the server is still starting
    raise AssertionError(f"coc's code-action menu never offered {label!r}; screen:\n{screen}")


HIT_ENTER = "Press ENTER or type command to continue"


def _answer_command_question(ed: TmuxEditor, choice: str) -> str:
    """The command question (window/showMessageRequest, Vim's confirm()): type the number of `choice`.

    Vim stops at "Press ENTER" when a message is wider than the message line (coc's
    "Use ':wa' to save changes ..." after a saved edit, with 'ruler' on in 100
    columns): a person presses Enter there, and so does this."""
    screen = ed.wait(lambda s: HIT_ENTER in s or "agent-lsp wants to run" in s)
    if HIT_ENTER in screen and "agent-lsp wants to run" not in screen:
        ed.send("Enter")
    screen = ed.wait(lambda s: "agent-lsp wants to run" in s and re.search(r"\((\d)\)" + re.escape(choice), s))
    number = re.search(r"\((\d)\)" + re.escape(choice), screen).group(1)
    ed.type(number)
    return screen


def _start(who, project: Path, home: Path, model) -> TmuxEditor:
    editor = require_coc(who)
    ed = TmuxEditor(editor, project / "calc.py", home, model.base_url)
    ed.wait("return a - b")
    ed.send("2", "G", "^")  # on the line's text: coc shows a diagnostic under the cursor
    return ed


def _in_step(ed: TmuxEditor, project: Path, text: str) -> None:
    """Buffer not modified, `:w` silent (no "changed since reading it"), disk == text."""
    ed.ex("set modified?")
    answer = re.compile(r"^\s*(no)?modified\b", re.M)
    screen = ed.wait(lambda s: answer.search(s))
    assert answer.search(screen).group(1) == "no", screen
    ed.ex("w")
    screen = ed.wait(lambda s: "written" in s or "WARNING" in s or "(y/n)" in s)
    assert "WARNING" not in screen and "changed since reading" not in screen and "written" in screen, screen
    assert (project / "calc.py").read_text() == text


@EDITORS
def test_coc_inline_review_accept_then_allow(who, project, home, model):
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": CHECK}, delay=1.5),  # a model takes a moment to answer
        reply("Fixed add."),
    )
    ed = _start(who, project, home, model)
    try:
        _menu_pick(ed, "Ask agent about line 2")
        # the person sees the change before deciding: the proposed text, with the buffer unchanged
        review = ed.wait(lambda s: "replace with:" in s and "return a + b" in s)
        assert "    return a - b" in review and (project / "calc.py").read_text() == CALC, review
        ed.wait(lambda s: "Agent" in s and "→ edit_file" in s)  # coc's progress float: the step running
        _menu_pick(ed, "Accept agent edit")
        question = _answer_command_question(ed, "Allow once")
        assert CHECK.split("'")[0] in question or "python3 -c" in question, question
        answer = ed.wait("agent: Fixed add.")
        assert told(model, "sum 5"), "the command did not see the accepted edit on disk"
        # the buffer's line, not coc's progress float (it may still show the call's arguments)
        assert "return a + b" in answer and not re.search(r"^\s*return a - b\s*$", answer, re.M), answer
        assert "replace with:" not in answer, answer  # the review is gone with the decision
        _in_step(ed, project, FIXED_ADD)
        assert model.violations == []
    finally:
        ed.close()


@EDITORS
def test_coc_inline_review_reject_then_deny(who, project, home, model):
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("bash", {"command": "touch ran.txt"}),
        reply("Left it as it is."),
    )
    before = (project / "calc.py").read_bytes()
    ed = _start(who, project, home, model)
    try:
        _menu_pick(ed, "Ask agent about line 2")
        ed.wait(lambda s: "replace with:" in s and "return a + b" in s)
        _menu_pick(ed, "Reject agent edit")
        _answer_command_question(ed, "Deny")
        answer = ed.wait("agent: Left it as it is.")
        assert "return a - b" in answer and "replace with:" not in answer, answer
        assert (project / "calc.py").read_bytes() == before
        assert not (project / "ran.txt").exists()
        assert told(model, "rejected") and told(model, "denied")
        _in_step(ed, project, CALC)
        assert (project / "calc.py").read_bytes() == before
        assert model.violations == []
    finally:
        ed.close()


@EDITORS
def test_coc_two_edits_of_one_file_each_reviewed_and_saved(who, project, home, model):
    """Two edits of calc.py in one task: each is shown and accepted on its own; after the
    first one's save (the rename round trip) the second still applies to the same buffer,
    and the task ends with buffer and disk in step."""
    fixed = CALC.replace("return a - b", "return a + b").replace("s = 1", "s = 0")
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + b"}),
        tool_call("edit_file", {"path": "calc.py", "old": "    s = 1", "new": "    s = 0"}, delay=1.0),
        reply("Fixed both.", delay=1.0),
    )
    ed = _start(who, project, home, model)
    try:
        _menu_pick(ed, "Ask agent about line 2")
        ed.wait(lambda s: "replace with:" in s and "return a + b" in s)
        _menu_pick(ed, "Accept agent edit")
        second = re.compile(r">>\s+s = 1")  # coc's sign: the second proposal waits on line 6
        screen = ed.wait(lambda s: HIT_ENTER in s or second.search(s))
        if HIT_ENTER in screen:
            ed.send("Enter")
            ed.wait(lambda s: second.search(s))
        assert (project / "calc.py").read_text() == CALC.replace("return a - b", "return a + b")
        for _ in range(5):  # to the second proposal, where coc shows it under the cursor
            ed.send("Escape", "6", "G", "^")
            try:
                ed.wait(lambda s: "replace with:" in s and "s = 0" in s.split("replace with:")[1][:40], timeout=4)
                break
            except AssertionError:
                continue
        _menu_pick(ed, "Accept agent edit")
        screen = ed.wait(lambda s: HIT_ENTER in s or "agent: Fixed both." in s)
        if HIT_ENTER in screen:
            ed.send("Enter")
        ed.wait("agent: Fixed both.")
        assert not told(model, "rejected") and not told(model, "stale"), [r["messages"][-1] for r in model.requests]
        _in_step(ed, project, fixed)
    finally:
        ed.close()


@EDITORS
def test_coc_edit_of_a_file_that_is_not_open(who, project, home, model):
    """The agent edits a file the person has not opened: the review opens it
    (window/showDocument), Accept applies and saves it through coc, and that buffer too
    is in step with the disk."""
    (project / "notes.py").write_text("NOTE = 'old'\n")
    model.add(
        tool_call("edit_file", {"path": "notes.py", "old": "'old'", "new": "'new'"}),
        reply("Updated the note.", delay=1.0),
    )
    ed = _start(who, project, home, model)
    try:
        _menu_pick(ed, "Ask agent about line 2")
        ed.wait("NOTE = 'old'")  # opened for the review
        for _ in range(5):
            ed.send("Escape", "1", "G", "^")
            try:
                ed.wait(lambda s: "replace with:" in s and "'new'" in s, timeout=4)
                break
            except AssertionError:
                continue
        assert (project / "notes.py").read_text() == "NOTE = 'old'\n"
        _menu_pick(ed, "Accept agent edit")
        screen = ed.wait(lambda s: HIT_ENTER in s or "agent: Updated the note." in s)
        if HIT_ENTER in screen:
            ed.send("Enter")
        ed.wait("agent: Updated the note.")
        assert (project / "notes.py").read_text() == "NOTE = 'new'\n"
        ed.ex("set modified?")
        answer = re.compile(r"^\s*(no)?modified\b", re.M)
        assert answer.search(ed.wait(lambda s: answer.search(s))).group(1) == "no"
        ed.ex("wall")  # every buffer: calc.py untouched, notes.py saved already
        time.sleep(1.5)  # a "changed since reading it" question would be up by now
        screen = ed.screen()
        assert "WARNING" not in screen and "(y/n)" not in screen and "changed since reading" not in screen, screen
        assert (project / "calc.py").read_text() == CALC
    finally:
        ed.close()
