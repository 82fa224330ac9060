"""Bad input from a client: a JSON-RPC error with a clear message, no traceback, and the server keeps answering.

All cases run against one server in sequence: surviving the whole list is part of the test.
"""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.lsp.conftest import no_traceback, send_raw_notification, send_raw_request
from tests.lsp_helpers import code_actions, execute, rng
from tests.scripted_model import reply

INVALID_PARAMS = -32602
DIAG = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}, "message": "bad"}


def cases(ws, outside):
    ok = (ws / "ok.py").as_uri()
    return [
        # (command, arguments, a fragment the message must contain)
        ("agentLsp.runTask", ["fix it"], "takes one argument, an object"),
        ("agentLsp.runTask", [{"task": 5}], "task must be a non-empty string"),
        ("agentLsp.runTask", [{"task": "   "}], "task must be a non-empty string"),
        ("agentLsp.runTask", [{"task": "a"}, {"task": "b"}], "takes one argument"),
        ("agentLsp.runTask", [], "takes one argument"),
        ("agentLsp.runTask", None, "takes one argument"),
        ("agentLsp.runTask", [{}], "give a task"),
        ("agentLsp.runTask", [{"task": "x", "uri": "untitled:Untitled-1"}], "only file:// URIs"),
        ("agentLsp.runTask", [{"task": "x", "uri": "https://example.com/a.py"}], "only file:// URIs"),
        ("agentLsp.runTask", [{"task": "x", "uri": 42}], "uri must be a non-empty string"),
        ("agentLsp.runTask", [{"task": "x", "uri": outside.as_uri()}], "outside the workspace"),
        ("agentLsp.runTask", [{"task": "x", "uri": (ws / "../ws/../../etc/passwd").as_uri()}], "outside the workspace"),
        ("agentLsp.runTask", [{"task": "x", "uri": (ws / "missing.py").as_uri()}], "no such file"),
        ("agentLsp.runTask", [{"task": "x", "uri": ws.as_uri()}], "cannot read"),
        ("agentLsp.runTask", [{"task": "x", "range": DIAG["range"]}], "a range needs a uri"),
        ("agentLsp.runTask", [{"uri": ok, "range": {"start": {"line": -1, "character": 0}}}], "range.start"),
        ("agentLsp.runTask", [{"uri": ok, "range": "line 3"}], "range.start"),
        ("agentLsp.runTask", [{"uri": ok, "range": {"start": {"line": 3, "character": 0},
                                                    "end": {"line": 1, "character": 0}}}], "ends before it starts"),
        ("agentLsp.fixDiagnostic", [{"uri": ok, "diagnostic": "boom"}], "diagnostic must be an LSP Diagnostic"),
        ("agentLsp.fixDiagnostic", [{"uri": ok, "diagnostic": {"message": "no range"}}], "range.start"),
        ("agentLsp.fixDiagnostic", [{"uri": ok, "diagnostic": {"range": DIAG["range"]}}], "diagnostic must be"),
        ("agentLsp.fixDiagnostic", [{"diagnostic": DIAG}], "uri must be a non-empty string"),
        ("agentLsp.fixDiagnostic", [{"uri": outside.as_uri(), "diagnostic": DIAG}], "outside the workspace"),
        ("agentLsp.fixDiagnostic", [{"uri": ok, "diagnostic": DIAG}, 1], "takes one argument"),
        ("agentLsp.noSuchCommand", [], "noSuchCommand"),
    ]


async def test_bad_command_arguments(launch, model, workspace, tmp_path):
    (workspace / "ok.py").write_text("x = 1\n")
    outside = tmp_path / "elsewhere.py"
    outside.write_text("secret = 1\n")
    editor = await launch()
    for command, arguments, fragment in cases(workspace, outside):
        with pytest.raises(JsonRpcException) as err:
            await editor.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=command, arguments=arguments)
            )
        e = err.value
        where = f"{command} {arguments!r}"
        assert e.code == INVALID_PARAMS, f"{where}: code {e.code} {e.message}"
        assert fragment in e.message, f"{where}: {e.message!r}"
        assert no_traceback(e.message) and no_traceback(e.data), f"{where}: {e.message!r} {e.data!r}"
    assert model.requests == []  # nothing half-started

    # still answering, and still working
    actions = await code_actions(editor, (workspace / "ok.py").as_uri(), rng(0, 0, 0, 0), [])
    assert actions and actions[0].title == "Ask agent about line 1"
    model.add(reply("fine"))
    assert (await execute(editor, "agentLsp.runTask", {"task": "hi"}))["status"] == "done"


async def test_malformed_requests_get_errors_without_tracebacks(launch, model, workspace):
    (workspace / "ok.py").write_text("x = 1\n")
    editor = await launch()
    uri = (workspace / "ok.py").as_uri()
    raw = [
        # (method, params, what the message must name)
        (types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": {"uri": uri}, "range": DIAG["range"],
                                           "context": {"diagnostics": [{"message": "no range"}]}},
         "params.context.diagnostics[0].range"),
        (types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": {"uri": uri}}, "params.range"),
        (types.WORKSPACE_EXECUTE_COMMAND, {"arguments": []}, "params.command"),
        ("agentLsp/noSuchRequest", {"x": 1}, "agentLsp/noSuchRequest"),
    ]
    for method, params, fragment in raw:
        with pytest.raises(JsonRpcException) as err:
            # pygls alone never answers a request whose params do not fit the type: the wait would time out
            await asyncio.wait_for(send_raw_request(editor, method, params), 5)
        e = err.value
        assert fragment in e.message, f"{method}: {e.message!r}"
        assert no_traceback(e.message) and no_traceback(e.data), f"{method}: {e.message!r} {e.data!r}"
    # garbage notifications are ignored
    send_raw_notification(editor, types.TEXT_DOCUMENT_DID_CHANGE, {"textDocument": {"uri": uri}})
    send_raw_notification(editor, types.TEXT_DOCUMENT_DID_CHANGE, {
        "textDocument": {"uri": "file:///never/opened.py", "version": 3},
        "contentChanges": [{"range": DIAG["range"], "text": "x"}]})
    send_raw_notification(editor, types.WORKSPACE_DID_CHANGE_CONFIGURATION, {"settings": [1, 2]})
    send_raw_notification(editor, types.WINDOW_WORK_DONE_PROGRESS_CANCEL, {"token": "nobody-has-this"})
    send_raw_notification(editor, "$/cancelRequest", {"id": "no-such-request"})

    actions = await code_actions(editor, uri, rng(0, 0, 0, 0), [])
    assert [a.title for a in actions] == ["Ask agent about line 1"]
    model.add(reply("fine"))
    assert (await execute(editor, "agentLsp.runTask", {"task": "hi"}))["status"] == "done"
    # no popups with internals either
    shown = [m.message for m in editor.client.messages] + [m.message for m in editor.client.log_messages]
    assert all(no_traceback(m) for m in shown), shown
