"""The eval's LSP client applies WorkspaceEdits as editors do: ranges in UTF-16 units, all against the old text."""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import from_fs_path

from agent_lsp.evals.via_lsp import apply_text_edits, apply_workspace_edit


def edit(l1: int, c1: int, l2: int, c2: int, text: str) -> types.TextEdit:
    return types.TextEdit(range=types.Range(start=types.Position(line=l1, character=c1),
                                            end=types.Position(line=l2, character=c2)), new_text=text)


def test_several_edits_refer_to_the_original_text_in_utf16_units():
    text = "a = '😀x'\r\nb = 2\n"
    # '😀' is two UTF-16 units: x sits at character 7 of line 0
    out = apply_text_edits(text, [edit(1, 4, 1, 5, "3"), edit(0, 7, 0, 8, "y"), edit(0, 0, 0, 1, "A")])
    assert out == "A = '😀y'\r\nb = 3\n"


def test_a_create_then_an_edit_makes_the_new_file(tmp_path):
    path = tmp_path / "new.py"
    uri = from_fs_path(str(path))
    we = types.WorkspaceEdit(document_changes=[
        types.CreateFile(uri=uri),
        types.TextDocumentEdit(text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                               edits=[edit(0, 0, 0, 0, "print('hi')\n")]),
    ])
    apply_workspace_edit(we)
    assert path.read_text() == "print('hi')\n"
