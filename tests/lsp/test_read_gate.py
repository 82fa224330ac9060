"""lsp-mode drops whatever arrives in the same read as the answer to its synchronous request.

So for lsp-mode (clientInfo "emacs") nothing may follow a response within one read of
the server's output. The raw client reads like a busy Emacs (a pause before every read,
so output piles up in the pipe) while a task streams progress and questions and the
"person" asks for code actions; every read must end at its response, if it holds one.
Also: lsp-mode's commands are detached by default (answered at once, no 10 s timeout).
"""

from __future__ import annotations

import time

from tests.lsp.rawclient import RawClient
from tests.scripted_model import reply, tool_call

LSP_MODE_CAPS = {
    "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}, "configuration": True},
    "textDocument": {"codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}}},
    "window": {"workDoneProgress": True},
}


def code_action_params(uri: str) -> dict:
    zero = {"line": 0, "character": 0}
    return {"textDocument": {"uri": uri}, "range": {"start": zero, "end": zero}, "context": {"diagnostics": []}}


def shared_reads(c: RawClient) -> list[list[str]]:
    """Reads in which a message came after a response: what lsp-mode would have lost."""
    bad = []
    with c.lock:
        for read in c.reads:
            kinds = ["response" if "method" not in m else m["method"] for m in read]
            if "response" in kinds[:-1]:
                bad.append(kinds)
    return bad


def test_nothing_shares_a_read_with_an_answer(workspace, model):
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    model.add(
        tool_call("read_file", {"path": "calc.py"}),
        tool_call("list_files", {"path": "."}),
        tool_call("bash", {"command": "true"}),
        reply("It subtracts.", delay=0.5),
    )
    c = RawClient(workspace, model.base_url, read_pause=0.12,
                  answer=lambda m: {"result": {"title": "Allow once"}} if m["method"] == "window/showMessageRequest"
                  else {"result": None})
    try:
        c.initialize(LSP_MODE_CAPS, options={}, client_info={"name": "emacs", "version": "28.2"})
        uri = c.open(workspace / "calc.py")
        started = time.monotonic()
        task = c.call("workspace/executeCommand", {"command": "agentLsp.runTask", "arguments": [{"task": "what?"}]})
        # detached: answered well within lsp-mode's 10 s (the first task also imports the engine)
        assert task["result"]["status"] == "started" and time.monotonic() - started < 8, task
        for _ in range(12):
            c.request("textDocument/codeAction", code_action_params(uri))
            time.sleep(0.1)
        c.wait_for(lambda m: m.get("method") == "window/showMessage" and "It subtracts" in m["params"]["message"],
                   timeout=20)
        methods = {m.get("method") for m in c.messages}
        assert {"window/workDoneProgress/create", "$/progress", "window/showMessageRequest"} <= methods, methods
        assert shared_reads(c) == [], shared_reads(c)[:5]
    finally:
        c.close()
