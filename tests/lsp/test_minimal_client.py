"""No client can stall a task: a minimal client that declares `workspace.applyEdit: false`,
no `window` capabilities and no `clientInfo` (pytest-lsp, real server, scripted model).

- It is never sent `workspace/applyEdit`; the person accepts with the client's own UI:
  the inline review's "Accept agent edit" code action carries the `edit` itself, the
  client applies it (didChange) and the task goes on, the edit on disk too.
- A command question it cannot show is not silently waited on: the task says so plainly
  (an Error message, which such clients do show) and that step is not run.
- A client that declares questions but never answers one: a timeout with a clear message.
- `agentLsp.cancel` and `$/cancelRequest` end any wait within 1 s.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from tests.lsp.conftest import send_command, tool_results, wait_until
from tests.lsp_helpers import _converter, apply, stop_client
from tests.scripted_model import reply, tool_call

CALC = "def add(a, b):\n    return a - b\n"
FIXED = CALC.replace("a - b", "a + b")


class Minimal:
    """The client: its documents, what it was sent, and no answer to what it cannot do."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.docs: dict[str, tuple[int, str]] = {}
        self.apply_requests: list[Any] = []
        self.questions: list[Any] = []
        self.answer_questions = True

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params):  # must never be called: the client said applyEdit: false
            self.apply_requests.append(params)
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="not supported")

        @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        async def question(params):
            self.questions.append(params)
            if not self.answer_questions:
                await asyncio.sleep(3600)  # a client that never answers
            return None

    def open(self, path: Path, text: str) -> str:
        uri = from_fs_path(str(path))
        self.docs[uri] = (1, text)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        return uri

    def apply_action_edit(self, edit: types.WorkspaceEdit) -> None:
        """What the client does with a code action's own edit: change its buffer, say didChange."""
        for change in edit.document_changes or []:
            uri = change.text_document.uri
            version, text = self.docs[uri]
            new = apply(text, change.edits, "utf-16")
            self.docs[uri] = (version + 1, new)
            self.client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)]))

    def errors_shown(self) -> list[str]:
        return [m.message for m in self.client.messages if m.type == types.MessageType.Error]


CAPS = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        apply_edit=False, workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)),
    text_document=types.TextDocumentClientCapabilities(code_action=types.CodeActionClientCapabilities(
        code_action_literal_support=types.ClientCodeActionLiteralOptions(
            code_action_kind=types.ClientCodeActionKindOptions(value_set=[types.CodeActionKind.QuickFix])))),
)


@pytest.fixture
async def minimal(workspace, model):
    started: list[Minimal] = []

    async def start(caps: types.ClientCapabilities = CAPS, options: dict[str, Any] | None = None) -> Minimal:
        client = LanguageClient(converter_factory=_converter)
        register_lsp_features(client)
        await client.start_io(sys.executable, "-m", "agent_lsp", "serve",
                              env={**__import__("os").environ, "AGENT_BASE_URL": model.base_url, "AGENT_MODEL": "m"})
        m = Minimal(client)
        await client.initialize_session(types.InitializeParams(
            capabilities=caps, process_id=None, root_uri=from_fs_path(str(workspace)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(workspace)), name="ws")],
            initialization_options={"maxSteps": 10, "commandTimeout": 5, **(options or {})}))
        started.append(m)
        return m

    yield start
    for m in started:
        await stop_client(m.client)


async def review_actions(m: Minimal, uri: str) -> dict[str, types.CodeAction]:
    await wait_until(lambda: any(d.source == "agent-lsp" for d in m.client.diagnostics.get(uri, [])),
                     timeout=15, what="the pending edit's diagnostics")
    zero = types.Position(line=1, character=4)
    actions = await m.client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(start=zero, end=zero),
        context=types.CodeActionContext(diagnostics=m.client.diagnostics.get(uri, []))))
    return {a.title: a for a in actions or [] if isinstance(a, types.CodeAction)}


async def test_accept_through_the_actions_own_edit(minimal, model, workspace):
    (workspace / "calc.py").write_text(CALC)
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("read_file", {"path": "calc.py"}),
        reply("Fixed."),
    )
    m = await minimal()
    uri = m.open(workspace / "calc.py", CALC)
    _, task = send_command(m, "agentLsp.runTask", {"task": "fix add"})
    actions = await review_actions(m, uri)
    accept = actions["Accept agent edit"]
    assert accept.edit is not None and accept.command is None, accept
    assert actions["Reject agent edit"].command is not None
    m.apply_action_edit(accept.edit)
    result = await asyncio.wait_for(task, 20)
    assert result["status"] == "done", result
    assert m.docs[uri][1] == FIXED and (workspace / "calc.py").read_text() == FIXED
    assert m.apply_requests == [], "sent workspace/applyEdit to a client that declared applyEdit: false"
    assert "a + b" in tool_results(model, "read_file")[0]
    assert not any(r for r in tool_results(model, "edit_file") if "reject" in r or "stale" in r)
    assert model.violations == []


async def test_reject_and_a_question_it_cannot_show(minimal, model, workspace):
    (workspace / "calc.py").write_text(CALC)
    model.add(
        tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
        tool_call("bash", {"command": "touch ran.txt"}),
        reply("Left it."),
    )
    m = await minimal()
    uri = m.open(workspace / "calc.py", CALC)
    _, task = send_command(m, "agentLsp.runTask", {"task": "fix add"})
    reject = (await review_actions(m, uri))["Reject agent edit"]
    await m.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=reject.command.command, arguments=reject.command.arguments))
    t0 = time.monotonic()
    result = await asyncio.wait_for(task, 20)
    assert time.monotonic() - t0 < 5, "the command question was waited on"
    assert result["status"] == "done", result
    assert (workspace / "calc.py").read_text() == CALC and m.docs[uri][1] == CALC
    assert not (workspace / "ran.txt").exists()
    assert m.apply_requests == [] and m.questions == []
    (shown,) = [e for e in m.errors_shown() if "cannot show" in e]
    assert "touch ran.txt" in shown, shown
    told = tool_results(model, "bash")[0]
    assert "cannot show" in told, told


async def test_a_question_never_answered_times_out_plainly(minimal, model, workspace):
    caps = types.ClientCapabilities(workspace=CAPS.workspace, text_document=CAPS.text_document,
                                    window=types.WindowClientCapabilities(
                                        show_message=types.ShowMessageRequestClientCapabilities()))
    model.add(tool_call("bash", {"command": "touch ran.txt"}), reply("Gave up."))
    m = await minimal(caps, {"answerTimeout": 1})
    m.answer_questions = False
    _, task = send_command(m, "agentLsp.runTask", {"task": "touch it"})
    result = await asyncio.wait_for(task, 15)
    assert result["status"] == "done", result
    assert len(m.questions) == 1 and not (workspace / "ran.txt").exists()
    assert any("did not answer" in e for e in m.errors_shown()), m.client.messages
    assert "did not answer" in tool_results(model, "bash")[0]


@pytest.mark.parametrize("how", ["agentLsp.cancel", "$/cancelRequest"])
@pytest.mark.parametrize("waiting_on", ["review", "question", "trust"])
async def test_cancel_ends_any_wait_within_a_second(minimal, model, workspace, how, waiting_on):
    (workspace / "calc.py").write_text(CALC)
    caps = CAPS
    if waiting_on == "trust":  # a project settings file: trust is asked while the task starts
        (workspace / ".agent-lsp").mkdir()
        (workspace / ".agent-lsp" / "settings.json").write_text('{"baseUrl": "http://127.0.0.1:9/v1"}')
    if waiting_on in ("question", "trust"):
        caps = types.ClientCapabilities(workspace=CAPS.workspace, text_document=CAPS.text_document,
                                        window=types.WindowClientCapabilities(
                                            show_message=types.ShowMessageRequestClientCapabilities()))
        model.add(tool_call("bash", {"command": "touch ran.txt"}), reply("never"))
    else:
        model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}), reply("never"))
    m = await minimal(caps)
    m.answer_questions = False
    uri = m.open(workspace / "calc.py", CALC)
    msg_id, task = send_command(m, "agentLsp.runTask", {"task": "go"})
    if waiting_on == "review":
        await review_actions(m, uri)
    else:
        await wait_until(lambda: m.questions, timeout=15, what=f"the {waiting_on} question")
    t0 = time.monotonic()
    if how == "agentLsp.cancel":
        await m.client.workspace_execute_command_async(types.ExecuteCommandParams(command="agentLsp.cancel"))
    else:
        m.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
    try:
        result = await asyncio.wait_for(task, 5)
        assert result["status"] == "cancelled", result
    except Exception as e:  # $/cancelRequest: the request itself is answered "cancelled"
        assert how == "$/cancelRequest" and "cancel" in str(e).lower(), e
        await wait_until(lambda: any("cancelled" in x.message for x in m.client.log_messages), timeout=2,
                         what="the task's end")
    assert time.monotonic() - t0 < 1.0
    assert (workspace / "calc.py").read_text() == CALC and not (workspace / "ran.txt").exists()


async def test_a_new_file_accepted_by_command_is_written_by_the_server(minimal, model, workspace):
    """A file the client does not hold: Accept is the command, and the server writes the file
    (still no applyEdit)."""
    model.add(tool_call("write_file", {"path": "notes.txt", "content": "first\n"}), reply("Wrote it."))
    m = await minimal()
    _, task = send_command(m, "agentLsp.runTask", {"task": "write notes"})
    uri = (workspace / "notes.txt").as_uri()
    await wait_until(lambda: any(d.source == "agent-lsp" for d in m.client.diagnostics.get(uri, [])),
                     timeout=15, what="the pending new file")
    await m.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="agentLsp.acceptEdit", arguments=[{"uri": uri}]))
    result = await asyncio.wait_for(task, 20)
    assert result["status"] == "done", result
    assert (workspace / "notes.txt").read_text() == "first\n"
    assert m.apply_requests == []
