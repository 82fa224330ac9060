"""Document sync hooks: pygls keeps the text; we only wake whoever waits for a change.

An edit counts as applied when the editor's document really holds the new text, so
the edit flow waits on these notifications rather than on the applyEdit answer.

Each opened or changed version also gets this server's diagnostics (none, or the edit
waiting in the inline review). A multiplexer (rass, eglot's way to run agent-lsp beside
the person's own server) merges every server's diagnostics per version and waits up to
a second for a server that says nothing, or drops a pending review on the next keystroke.
"""

from __future__ import annotations

from lsprotocol import types

from ..app import AgentServer, server


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: AgentServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.document_changed(params.text_document.uri)
    _publish_ours(ls, params.text_document.uri, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: AgentServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.person_edited(params.text_document.uri, saved=False)
    ls.document_changed(params.text_document.uri)
    _publish_ours(ls, params.text_document.uri, params.text_document.version)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: AgentServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.document_changed(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: AgentServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.person_edited(params.text_document.uri, saved=True)
    ls.document_changed(params.text_document.uri)


def _publish_ours(ls: AgentServer, uri: str, version: int) -> None:
    item = ls.review.pending(uri)
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=item.diagnostics if item else [])
    )
