"""A tiny real language server for the diagnosticServers tests (pygls), with ways to die.

It publishes one error per line holding BAD (source "flaky", code "B1") for the version it
got. On text holding DIE it exits without answering, the first time only (a marker file
next to $FLAKY_LOG remembers); on DIE_ALWAYS it always exits. Each start appends a line to
$FLAKY_LOG so a test can count restarts.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("flaky", "1")
LOG = Path(os.environ["FLAKY_LOG"])


def check(ls: LanguageServer, uri: str, version: int, text: str) -> None:
    marker = LOG.with_suffix(".died")
    if "DIE_ALWAYS" in text or ("DIE" in text and not marker.exists()):
        marker.touch()
        os._exit(1)
    diags = [
        types.Diagnostic(range=types.Range(start=types.Position(line=i, character=0), end=types.Position(line=i, character=3)),
                         message="bad word", severity=types.DiagnosticSeverity.Error, source="flaky", code="B1")
        for i, line in enumerate(text.split("\n")) if "BAD" in line
    ]
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=diags))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    d = params.text_document
    check(ls, d.uri, d.version, d.text)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    doc = ls.workspace.get_text_document(params.text_document.uri)
    check(ls, doc.uri, params.text_document.version, doc.source)


if __name__ == "__main__":
    with LOG.open("a") as f:
        f.write("start\n")
    server.start_io()
