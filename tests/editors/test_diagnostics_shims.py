"""agentLsp/diagnostics answered by each documented editor config, in the real editor.

A linter in the editor (vim.diagnostic.set in its own namespace; a Flymake backend in
Emacs) checks calc.py again after every change. The agent's edit makes it report an
undefined name on line 2; a warning on line 1 was there before. The next model request
must carry exactly the new error, read from the editor through the documented shim.
"""

from __future__ import annotations

import pytest

from tests.editors.harness import describe, prompts, told
from tests.editors.test_editors import PEOPLE, ok, session
from tests.scripted_model import reply, tool_call

OLD = {"lnum": 0, "col": 4, "end_col": 7, "message": "old style warning", "source": "lint", "severity": 2}
NEW = {"lnum": 1, "col": 15, "end_col": 16, "message": "undefined name c", "source": "lint", "code": "F821", "severity": 1}


@pytest.mark.parametrize("who", list(PEOPLE))
def test_the_editor_tells_the_agent_the_new_problem(who, project, home, model):
    person = PEOPLE[who]
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "return a - b", "new": "return a + c"}),
        reply("Changed add."),
    )
    s = session(
        person, project, home, model,
        [
            {"step": "attach"},
            {"step": "lint_rules", "default": [OLD], "rules": [{"contains": "a + c", "items": [OLD, NEW]}],
             "delay_ms": 300},
            person.task("change add"),
            {"step": "wait_message", "text": "agent: Changed add."},
            {"step": "snapshot", "name": "after_task"},
        ],
        confirm=["y"],
    )
    ok(s)
    assert len(prompts(s.result, "confirm")) == 1, describe(s)
    assert "return a + c" in s.result["after_task"]["text"], describe(s)
    edit = [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(edit) == 1, describe(s)
    assert "\nNew problems in calc.py (1 error):\n  line 2: error " in edit[0], edit[0] + describe(s)
    assert edit[0].endswith("undefined name c"), edit[0]
    assert "old style warning" not in edit[0]
    assert not told(model, "rejected"), describe(s)
