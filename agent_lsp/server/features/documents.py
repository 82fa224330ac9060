"""Document sync hooks: pygls keeps the text; we only wake whoever waits for a change.

An edit counts as applied when the editor's document really holds the new text, so
the edit flow waits on these notifications rather than on the applyEdit answer.
"""

from __future__ import annotations

from lsprotocol import types

from ..app import AgentServer, server


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: AgentServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.document_changed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: AgentServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.document_changed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: AgentServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.document_changed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: AgentServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.document_changed(params.text_document.uri)
