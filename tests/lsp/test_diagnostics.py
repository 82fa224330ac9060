"""agentLsp/diagnostics: the editor tells the agent what its edit broke, and whether a fix worked.

The client answers `agentLsp/diagnostics` from the text its document holds (a scripted
"before" and "after" list), the way an editor answers with what its servers last
published; each test reads the tool result in the next model request.
"""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types

from tests.lsp_helpers import code_actions, execute, rng
from tests.lsp.conftest import wait_until
from tests.scripted_model import reply, tool_call

from .conftest import tool_results

BUGGY = "def add(a, b):\n    return a - b\n"


def diag(line: int, message: str, *, severity: int = 1, source: str = "pyflakes", code: str | None = "F821") -> dict:
    d = {"range": {"start": {"line": line, "character": 4}, "end": {"line": line, "character": 9}},
         "message": message, "severity": severity, "source": source}
    if code is not None:
        d["code"] = code
    return d


def answer_by_text(editor, uri: str, answers: dict[str, list[dict]]) -> list[dict]:
    """Register the client's agentLsp/diagnostics: the list for the text the document holds now."""
    asked: list[str] = []

    @editor.client.feature("agentLsp/diagnostics")
    def diagnostics(params):
        asked.append(getattr(params, "uri", None))
        return {"diagnostics": answers.get(editor.text(uri), [])}

    return asked


async def test_a_new_error_is_reported_errors_first(launch, workspace, model):
    (workspace / "calc.py").write_text(BUGGY)
    editor = await launch(agent_lsp={"diagnostics": True}, init_options={"autoApprove": True})
    uri = editor.open(workspace / "calc.py")
    fixed = "def add(a, b):\n    return a + c\n"
    asked = answer_by_text(editor, uri, {
        BUGGY: [diag(0, "unused thing", severity=2, source="lint", code="W1")],
        fixed: [
            diag(0, "unused thing", severity=2, source="lint", code="W1"),  # was there before
            diag(1, "line too long", severity=2, source="lint", code="E501"),
            diag(1, "Undefined name `c`", code="F821"),
        ],
    })
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + c"}), reply("done"))
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add"})
    assert result["status"] == "done", result
    (edit,) = tool_results(model, "edit_file")
    assert edit == (
        "ok: edited calc.py (line 2 now hold the new text)\n"
        "New problems in calc.py (1 error, 1 warning):\n"
        "  line 2: error [pyflakes F821] Undefined name `c`\n"
        "  line 2: warning [lint E501] line too long"
    )
    assert asked and set(asked) == {uri}


async def test_an_error_that_only_moved_is_not_new(launch, workspace, model):
    text = "def add(a, b):\n    return a - b\n\n\nprint(add(1, undefined))\n"
    (workspace / "calc.py").write_text(text)
    editor = await launch(agent_lsp={"diagnostics": True}, init_options={"autoApprove": True})
    uri = editor.open(workspace / "calc.py")
    moved = "import os\nimport sys\n" + text
    old_error = diag(4, "Undefined name `undefined`")
    answers = {
        text: [old_error],
        moved: [diag(6, "Undefined name `undefined`")],  # the same problem, two lines lower
    }
    answer_by_text(editor, uri, answers)
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "def add(a, b):", "new": "import os\nimport sys\ndef add(a, b):"}),
        reply("done"),
    )
    result = await execute(editor, "agentLsp.runTask", {"task": "add imports"})
    assert result["status"] == "done", result
    (edit,) = tool_results(model, "edit_file")
    assert edit.endswith("\nNo new problems in calc.py."), edit

    # the same message on a line the shift does not explain is new
    again = "import os\nimport sys\nimport re\n" + text
    answers[again] = [diag(7, "Undefined name `undefined`"), diag(0, "Undefined name `undefined`")]
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "import sys\n", "new": "import sys\nimport re\n"}),
              reply("done"))
    result = await execute(editor, "agentLsp.runTask", {"task": "one more import"})
    assert result["status"] == "done", result
    last = tool_results(model, "edit_file")[-1]
    assert "New problems in calc.py (1 error):\n  line 1: error [pyflakes F821] Undefined name `undefined`" in last, last
    assert "line 8" not in last


async def test_a_fixed_target_is_reported_gone(launch, workspace, model):
    (workspace / "calc.py").write_text(BUGGY)
    editor = await launch(agent_lsp={"diagnostics": True}, init_options={"autoApprove": True})
    uri = editor.open(workspace / "calc.py")
    target = types.Diagnostic(range=rng(1, 11, 1, 16), message="add subtracts", source="review", code="E1")
    target_json = {"range": {"start": {"line": 1, "character": 11}, "end": {"line": 1, "character": 16}},
                   "message": "add subtracts", "source": "review", "code": "E1", "severity": 1}
    half = "def add(a, b):\n    # adds\n    return a - b\n"
    fixed = "def add(a, b):\n    # adds\n    return a + b\n"
    answer_by_text(editor, uri, {BUGGY: [target_json], half: [{**target_json, "range": {
        "start": {"line": 2, "character": 11}, "end": {"line": 2, "character": 16}}}], fixed: []})
    (fix,) = [a for a in await code_actions(editor, uri, rng(1, 0, 1, 0), [target]) if a.title.startswith("Fix")]
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "def add(a, b):\n", "new": "def add(a, b):\n    # adds\n"}),
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        reply("Fixed: add adds."),
    )
    result = await execute(editor, fix.command.command, *fix.command.arguments)
    assert result["status"] == "done", result
    first, second = tool_results(model, "edit_file")
    # the comment moved the problem a line down: still reported, and not new
    assert "No new problems in calc.py." in first
    assert "The problem being fixed (review E1: add subtracts) is still reported at line 3." in first
    assert second.endswith("No new problems in calc.py.\nThe problem being fixed (review E1: add subtracts) is no longer reported.")
    assert result["answer"] == "Fixed: add adds.\n\nThe problem is gone: review E1: add subtracts is no longer reported."


async def test_a_fix_that_did_not_work_says_so(launch, workspace, model):
    (workspace / "calc.py").write_text(BUGGY)
    editor = await launch(agent_lsp={"diagnostics": True}, init_options={"autoApprove": True})
    uri = editor.open(workspace / "calc.py")
    target = {"range": {"start": {"line": 1, "character": 11}, "end": {"line": 1, "character": 16}},
              "message": "add subtracts", "source": "review"}
    answer_by_text(editor, uri, {BUGGY: [target], "def add(a, b):\n    return (a - b)\n": [target]})
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "(a - b)"}), reply("Done."))
    result = await execute(editor, "agentLsp.fixDiagnostic", {"uri": uri, "diagnostic": target})
    (edit,) = tool_results(model, "edit_file")
    assert "The problem being fixed (review: add subtracts) is still reported at line 2." in edit
    assert result["answer"] == "Done.\n\nThe problem is still reported: review: add subtracts (line 2)."


async def test_a_client_that_never_answers_gets_the_result_within_the_bound(launch, workspace, model):
    (workspace / "calc.py").write_text(BUGGY)
    editor = await launch(agent_lsp={"diagnostics": True},
                          init_options={"autoApprove": True, "diagnosticsTimeout": 1})
    uri = editor.open(workspace / "calc.py")
    never = asyncio.Event()
    asked: list[float] = []

    @editor.client.feature("agentLsp/diagnostics")
    async def diagnostics(params):
        asked.append(time.monotonic())
        await never.wait()
        return {"diagnostics": []}

    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("edit_file", {"path": "calc.py", "old": "a + b", "new": "b + a"}),
        reply("done"),
    )
    started = time.monotonic()
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add"})
    elapsed = time.monotonic() - started
    never.set()
    assert result["status"] == "done", result
    # no source answered: nothing is said about problems, and nobody waited past the bound
    assert tool_results(model, "edit_file") == [
        "ok: edited calc.py (line 2 now hold the new text)",
        "ok: edited calc.py (line 2 now hold the new text)",
    ]
    assert editor.text(uri) == "def add(a, b):\n    return b + a\n"
    assert len(asked) == 1  # after one silence the editor is not asked again in this task
    assert elapsed < 8, elapsed  # one bound of 1 s, not a wait for an answer that never comes (slack for load)
    # the late answer (sent now) is no error on the server's side
    await asyncio.sleep(0.5)
    assert not any("error" in m.message.lower() for m in editor.client.log_messages), editor.client.log_messages


async def test_an_editor_without_the_capability_is_never_asked(launch, workspace, model):
    (workspace / "calc.py").write_text(BUGGY)
    editor = await launch(init_options={"autoApprove": True})
    uri = editor.open(workspace / "calc.py")
    asked = answer_by_text(editor, uri, {BUGGY: []})
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}), reply("done"))
    result = await execute(editor, "agentLsp.runTask", {"task": "fix add"})
    assert result["status"] == "done"
    assert tool_results(model, "edit_file") == ["ok: edited calc.py (line 2 now hold the new text)"]
    await wait_until(lambda: editor.text(uri) != BUGGY, what="the edit")
    assert asked == []


async def test_own_servers_run_beside_the_editor_and_stop_with_it(launch, workspace, model, tmp_path, monkeypatch):
    """diagnosticServers in an editor that also answers: both sources, each against its own baseline."""
    import sys
    from pathlib import Path

    from tests.lsp.conftest import processes

    flaky = str(Path(__file__).parents[1] / "servers" / "flaky_lsp.py")
    (workspace / "calc.py").write_text(BUGGY)
    editor = await launch(agent_lsp={"diagnostics": True}, env={"FLAKY_LOG": str(tmp_path / "flaky.log")},
                          init_options={"autoApprove": True, "diagnosticsTimeout": 10,
                                        "diagnosticServers": {"*.py": [sys.executable, flaky]}})
    uri = editor.open(workspace / "calc.py")
    answer_by_text(editor, uri, {"def add(a, b):\n    return a - b  # BAD\n": [diag(1, "editor says", source="ed", code=None)]})
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a - b  # BAD"}), reply("done"))
    result = await execute(editor, "agentLsp.runTask", {"task": "mark it"})
    assert result["status"] == "done", result
    (edit,) = tool_results(model, "edit_file")
    assert "New problems in calc.py (2 errors):" in edit, edit
    assert "line 2: error [flaky B1] bad word" in edit and "line 2: error [ed] editor says" in edit
    assert processes(flaky)  # still running between tasks
    from tests.lsp_helpers import stop_editor

    await stop_editor(editor)
    await wait_until(lambda: not processes(flaky), timeout=5, what="the diagnostic server to stop")
