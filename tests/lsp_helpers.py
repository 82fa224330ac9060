"""A pytest-lsp client that behaves like an editor: it keeps documents, answers edits and questions.

Real editors differ in how they answer `workspace/applyEdit` (see shared/editors.md),
so the answer policy is a setting: "accept" applies the edit to the client's copy
and sends didChange (VS Code, Neovim), "reject" answers applied: false (VS Code's
Discard), "error" raises -32603 (eglot's "no"), "lie" says applied: true and changes
nothing (Neovim 0.12 after a decline), "accept-silently" applies without ever
sending didChange for a document that is not open (Neovim 0.7 on a hidden buffer).
"""

from __future__ import annotations

import asyncio
import copy
import functools
import os
import sys
from pathlib import Path
from typing import Any, Union

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import default_converter
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import register_lsp_features

from agent_lsp.server.edits import PositionMap, units
from agent_lsp.jsonish import plain

CLIENTS = ["visual-studio-code", "neovim@v0.10.0", "emacs"]


@functools.cache
def _converter():
    """lsprotocol 2025.0.0 structures any code action with a "command" key as a Command.

    One converter for every client of the test run: cattrs compiles a (un)structure
    function per type on first use, about half a second of CPU per fresh converter.
    """
    conv = default_converter()

    def hook(obj: Any, _t: Any) -> Any:
        if isinstance(obj.get("command"), str):
            return conv.structure(obj, types.Command)
        return conv.structure(obj, types.CodeAction)

    conv.register_structure_hook(Union[types.Command, types.CodeAction], hook)
    return conv


class Editor:
    """The client side of a test: documents, answers, and what the server showed."""

    def __init__(self, client: LanguageClient, encoding: str = "utf-16") -> None:
        self.client = client
        self.encoding = encoding
        self.docs: dict[str, tuple[int, str]] = {}  # uri -> (version, text)
        self.edit_policy = "accept"
        self.command_answer: str | None = "Allow once"
        self.ask_answer: str | None = "blue"
        self.edit_requests: list[types.ApplyWorkspaceEditParams] = []
        self.message_requests: list[types.ShowMessageRequestParams] = []
        self.questions: list[str] = []
        self.events: list[dict[str, Any]] = []
        self._install()

    # ------------------------------------------------------------ documents

    def open(self, path: Path, text: str | None = None, language: str = "python") -> str:
        uri = from_fs_path(str(path))
        text = path.read_text() if text is None else text
        self.docs[uri] = (1, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
            )
        )
        return uri

    def type_text(self, uri: str, text: str) -> None:
        """The person edits the buffer (unsaved): full-text didChange."""
        version, _ = self.docs[uri]
        self.docs[uri] = (version + 1, text)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def text(self, uri: str) -> str:
        return self.docs[uri][1]

    # ------------------------------------------------------------ answering the server

    def _install(self) -> None:
        c = self.client

        @c.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams):
            self.edit_requests.append(params)
            return self._answer_edit(params)

        @c.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def message_request(params: types.ShowMessageRequestParams):
            self.message_requests.append(params)
            if self.command_answer is None:
                return None
            return types.MessageActionItem(title=self.command_answer)

        @c.feature("agentLsp/askUser")
        def ask(params):
            q = getattr(params, "question", None)
            self.questions.append(q)
            return {"answer": self.ask_answer}

        @c.feature("agentLsp/event")
        def event(params):
            self.events.append({
                "kind": getattr(params, "kind", None),
                "text": getattr(params, "text", None),
                "data": plain(getattr(params, "data", None)),
            })

    def _answer_edit(self, params: types.ApplyWorkspaceEditParams):
        policy = self.edit_policy
        if policy == "reject":
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="discarded in review")
        if policy == "error":
            raise JsonRpcInternalError(message="User cancelled server edit")
        if policy == "lie":
            return types.ApplyWorkspaceEditResult(applied=True)
        for change in params.edit.document_changes or []:
            if isinstance(change, types.CreateFile):
                continue
            if isinstance(change, types.DeleteFile):  # an editor deletes the file and closes its buffer
                path = Path(to_fs_path(change.uri))
                if path.exists():
                    path.unlink()
                if self.docs.pop(change.uri, None) is not None:
                    self.client.text_document_did_close(types.DidCloseTextDocumentParams(
                        text_document=types.TextDocumentIdentifier(uri=change.uri)))
                continue
            uri = change.text_document.uri
            if uri in self.docs:
                version, text = self.docs[uri]
                if change.text_document.version is not None and change.text_document.version != version:
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason="version mismatch")
                new = apply(text, change.edits, self.encoding)
                self.docs[uri] = (version + 1, new)
                self.client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                        content_changes=[types.TextDocumentContentChangeWholeDocument(text=new)],
                    )
                )
            else:  # like an editor opening a hidden buffer: the edit lands in memory only
                path = Path(to_fs_path(uri))
                base = path.read_text() if path.exists() else ""
                self.hidden = getattr(self, "hidden", {})
                self.hidden[uri] = apply(base, change.edits, self.encoding)
        return types.ApplyWorkspaceEditResult(applied=True)


def apply(text: str, edits, encoding: str) -> str:
    """Apply LSP TextEdits the way an editor does: all positions refer to the original text."""
    pm = PositionMap(text, encoding)

    def offset(pos: types.Position) -> int:
        if pos.line >= len(pm.starts):
            return len(text)
        i = pm.starts[pos.line]
        end = pm.starts[pos.line + 1] if pos.line + 1 < len(pm.starts) else len(text)
        count = 0
        while i < end and count < pos.character:
            count += units(text[i], encoding)
            i += 1
        return i

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


@functools.cache
def _preset(name: str) -> types.ClientCapabilities:
    return client_capabilities(name)


def capabilities(name: str, *, stream: bool = False, ask: bool = False, encodings: list[str] | None = None,
                 annotations: bool = True, agent_lsp: dict[str, Any] | None = None):
    """A preset's capabilities; `annotations` as the documented configs declare them.

    nvim-client/ and emacs-client/ add changeAnnotationSupport, because they show a diff
    before asking; `annotations=False` is the stock client, which gets the inline review.
    """
    caps = copy.deepcopy(_preset(name))  # parsing the JSON preset is slow; callers change the copy
    caps.workspace = caps.workspace or types.WorkspaceClientCapabilities()
    caps.workspace.workspace_edit = caps.workspace.workspace_edit or types.WorkspaceEditClientCapabilities()
    caps.workspace.workspace_edit.change_annotation_support = (
        types.ChangeAnnotationsSupportOptions(groups_on_label=True) if annotations else None
    )
    exp: dict[str, Any] = {}
    if stream or ask:
        exp["agentLsp"] = {"stream": stream, "askUser": ask}
    if agent_lsp:  # more experimental.agentLsp capabilities, e.g. {"diagnostics": True}
        exp.setdefault("agentLsp", {}).update(agent_lsp)
    if exp:
        caps.experimental = exp
    if encodings is not None:
        caps.general = caps.general or types.GeneralClientCapabilities()
        caps.general.position_encodings = encodings
    return caps


async def start_editor(
    root: Path,
    model_url: str,
    *,
    client_name: str = "visual-studio-code",
    init_options: dict[str, Any] | None = None,
    stream: bool = False,
    ask: bool = False,
    encodings: list[str] | None = None,
    folders: list[Path] | None = None,
    env: dict[str, str] | None = None,
    annotations: bool = True,
    agent_lsp: dict[str, Any] | None = None,
) -> Editor:
    client = LanguageClient(converter_factory=_converter)
    register_lsp_features(client)
    server_env = dict(os.environ)
    server_env.update({"AGENT_BASE_URL": model_url, "AGENT_MODEL": "scripted"})
    server_env.update(env or {})
    await client.start_io(sys.executable, "-m", "agent_lsp", "serve", env=server_env)
    caps = capabilities(client_name, stream=stream, ask=ask, encodings=encodings, annotations=annotations,
                        agent_lsp=agent_lsp)
    all_folders = folders or [root]
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(f)), name=f.name) for f in all_folders],
            initialization_options={"maxSteps": 10, "commandTimeout": 5, **(init_options or {})},
        )
    )
    negotiated = result.capabilities.position_encoding  # an enum member or a plain str ("utf-32")
    editor = Editor(client, encoding=getattr(negotiated, "value", negotiated) or "utf-16")
    editor.init_result = result
    return editor


async def stop_editor(editor: Editor) -> None:
    await stop_client(editor.client)


async def stop_client(client: LanguageClient) -> None:
    """shutdown, exit, and the server process gone: each step bounded, none can fail a teardown."""
    try:
        await asyncio.wait_for(client.shutdown_session(), 5)
    except Exception:
        pass
    try:
        await asyncio.wait_for(client.stop(), 5)
    except Exception:
        pass


async def execute(editor: Editor, command: str, *args: Any, timeout: float = 30) -> Any:
    return await asyncio.wait_for(
        editor.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(args))
        ),
        timeout,
    )


async def code_actions(editor: Editor, uri: str, rng: types.Range, diagnostics: list[types.Diagnostic]):
    return await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return types.Range(start=types.Position(line=l1, character=c1), end=types.Position(line=l2, character=c2))
