"""What the person watches: progress begin/report/end, the trace in the log, the answer, the event stream."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.lsp.conftest import progress_end, progress_tokens, send_command, wait_until
from tests.lsp_helpers import execute
from tests.scripted_model import reply, tool_call

TODOS = [{"content": "read the code", "status": "in_progress"}, {"content": "explain it", "status": "pending"}]
ANSWER = "It prints the greeting, nothing more. A longer answer streams in pieces."


def script(model) -> None:
    model.add(
        tool_call("todo_write", {"todos": TODOS}),
        tool_call("read_file", {"path": "hello.py"}),
        reply(ANSWER),
    )


async def test_progress_trace_and_answer(launch, model, workspace):
    (workspace / "hello.py").write_text("print('hello')\n")
    editor = await launch()
    script(model)
    result = await execute(editor, "agentLsp.runTask", {"task": "Explain\n  hello.py  please"})
    assert result == {"status": "done", "answer": ANSWER, "steps": 3}

    (token,) = progress_tokens(editor)
    begin, *reports, end = editor.client.progress_reports[token]
    assert isinstance(begin, types.WorkDoneProgressBegin)
    assert begin.title == "Agent" and begin.cancellable is True
    assert begin.message == "Explain hello.py please"
    messages = [r.message for r in reports]
    # every report carries the task's tokens so far, from the first model reply on
    assert messages[0].startswith("thinking · tokens: ") and messages[0].endswith(" completion")
    assert messages[1].startswith("→ todo_write(")
    assert any(m.startswith("plan 0/2 done · tokens: ") for m in messages)
    assert all(" · tokens: " in m for m in messages)
    assert any(m.startswith('→ read_file({"path": "hello.py"})') for m in messages)
    assert all(isinstance(r, types.WorkDoneProgressReport) for r in reports)
    assert isinstance(end, types.WorkDoneProgressEnd) and end.message == "done in 3 steps"

    log = [m.message for m in editor.client.log_messages]
    assert any(m.startswith("→ read_file(") for m in log)
    assert "[done] done in 3 steps" in log
    (shown,) = editor.client.messages
    assert shown.type == types.MessageType.Info and shown.message == f"agent: {ANSWER}"
    assert editor.events == []  # no stream without the experimental capability


async def test_failure_and_cancel_are_shown_as_such(launch, model, workspace):
    editor = await launch()
    model.add({"status": 404})  # not retried
    result = await execute(editor, "agentLsp.runTask", {"task": "hi"})
    assert result["status"] == "error" and "404" in result["answer"]
    (token,) = progress_tokens(editor)
    assert progress_end(editor, token).message.startswith("failed: ")
    (shown,) = editor.client.messages
    assert shown.type == types.MessageType.Error and "404" in shown.message

    (workspace / "a.py").write_text("x = 1\n")
    diag = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": "m"}
    model.add({"content": "slow", "stall": 30})
    _, fut = send_command(editor, "agentLsp.fixDiagnostic", {"uri": (workspace / "a.py").as_uri(), "diagnostic": diag})
    await wait_until(lambda: len(model.requests) == 2, what="the second model request")
    await execute(editor, "agentLsp.cancel")
    assert (await asyncio.wait_for(fut, 5))["status"] == "cancelled"
    token2 = progress_tokens(editor)[-1]
    assert editor.client.progress_reports[token2][0].title == "Agent: fix"
    assert progress_end(editor, token2).message == "cancelled after 1 step"
    assert editor.client.messages[-1].type == types.MessageType.Warning


async def test_event_stream_for_an_opted_in_client(launch, model, workspace):
    (workspace / "hello.py").write_text("print('hello')\n")
    editor = await launch(stream=True)
    script(model)
    await execute(editor, "agentLsp.runTask", {"task": "Explain hello.py"})
    await wait_until(lambda: any(e["kind"] == "answer" for e in editor.events), what="the answer event")
    kinds = [e["kind"] for e in editor.events]

    tools = [e for e in editor.events if e["kind"] == "tool"]
    assert [t["data"]["name"] for t in tools] == ["todo_write", "read_file"]
    assert tools[1]["text"].startswith("→ read_file(")
    results = [e for e in editor.events if e["kind"] == "tool_result"]
    assert [r["data"]["ok"] for r in results] == [True, True]
    assert results[1]["data"]["result"] == "1: print('hello')"
    (todo,) = [e for e in editor.events if e["kind"] == "todo"]
    assert todo["data"]["todos"] == TODOS
    deltas = [e["text"] for e in editor.events if e["kind"] == "text"]
    assert len(deltas) > 1 and "".join(deltas) == ANSWER  # streamed in pieces, in order
    answer = editor.events[-1]
    assert answer["kind"] == "answer" and answer["text"] == ANSWER
    assert answer["data"] == {"status": "done", "steps": 3}
    steps = [e["data"] for e in editor.events if e["kind"] == "step"]
    assert steps == [{"step": n, "maxSteps": 10} for n in (1, 2, 3)]  # each before its model call (tests: maxSteps 10)
    assert kinds.index("step") < kinds.index("tool")
    # in order: the todo comes after its tool call, the text after the last tool result
    assert kinds.index("todo") > kinds.index("tool")
    assert kinds.index("text") > max(i for i, k in enumerate(kinds) if k == "tool_result")
