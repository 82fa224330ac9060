"""The editor's buffers are the truth: unsaved text, versions, encodings, minimal edits, new files."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.lsp.conftest import tool_results
from tests.lsp_helpers import code_actions, execute, rng
from tests.scripted_model import reply, tool_call


async def settle(editor, uri: str) -> None:
    """A request after notifications: once it is answered the server has handled them (in order)."""
    await code_actions(editor, uri, rng(0, 0, 0, 0), [])


# ---------------------------------------------------------------- unsaved text


async def test_unsaved_buffer_is_what_the_agent_reads(launch, model, workspace):
    path = workspace / "notes.py"
    path.write_text("ON_DISK = 1\n")
    editor = await launch()
    uri = editor.open(path)
    editor.type_text(uri, "ON_DISK = 1\nUNSAVED = 2\n")
    model.add(tool_call("read_file", {"path": "notes.py"}), reply("I see UNSAVED"))
    result = await execute(
        editor, "agentLsp.runTask", {"task": "what is in here?", "uri": uri, "range": types.Range(
            start=types.Position(line=1, character=0), end=types.Position(line=1, character=0))}
    )
    assert result["status"] == "done"
    task_text = model.requests[0]["messages"][-1]["content"]
    assert "2: UNSAVED = 2" in task_text  # the selection context came from the buffer too
    (read,) = tool_results(model)
    assert read == "1: ON_DISK = 1\n2: UNSAVED = 2"
    assert path.read_text() == "ON_DISK = 1\n"  # reading never saves


# ---------------------------------------------------------------- stale versions

TEXT = "def area(r):\n    return 3.14 * r * r\n"


async def test_typing_while_the_edit_is_proposed_is_stale(launch, model, workspace):
    """The person types after the server computed the edit: the editor refuses the old version, the
    agent is told to re-read, and the person's text stays."""
    path = workspace / "geo.py"
    path.write_text(TEXT)
    editor = await launch()
    uri = editor.open(path)
    typed = "import math\n" + TEXT
    answer = editor._answer_edit

    def person_types_first(params):
        if editor.text(uri) != typed:
            editor.type_text(uri, typed)
        return answer(params)

    editor._answer_edit = person_types_first
    model.add(
        tool_call("edit_file", {"path": "geo.py", "old": "3.14", "new": "math.pi"}),
        reply("I will re-read it."),
    )
    await execute(editor, "agentLsp.runTask", {"task": "use math.pi"})
    (edit_result,) = tool_results(model)
    assert "changed in the editor" in edit_result and "Read it again" in edit_result, edit_result
    assert editor.text(uri) == typed
    assert path.read_text() == TEXT  # nothing written behind the editor's back


async def test_typing_over_the_text_between_read_and_edit(launch, model, workspace):
    """The person rewrites the very text the agent is about to replace: nothing is sent."""
    path = workspace / "geo.py"
    path.write_text(TEXT)
    editor = await launch()
    uri = editor.open(path)
    loop = asyncio.get_running_loop()
    typed = TEXT.replace("3.14 * r * r", "3.14159 * r ** 2")

    def type_then_edit(body):
        async def person():
            editor.type_text(uri, typed)
            await settle(editor, uri)
        asyncio.run_coroutine_threadsafe(person(), loop).result(5)
        return tool_call("edit_file", {"path": "geo.py", "old": "3.14 * r * r", "new": "math.pi * r * r"})

    model.add(tool_call("read_file", {"path": "geo.py"}), type_then_edit, reply("re-reading"))
    await execute(editor, "agentLsp.runTask", {"task": "use math.pi"})
    _read, edit_result = tool_results(model)
    assert edit_result.startswith("error:") and "read the file again" in edit_result, edit_result
    assert editor.edit_requests == []
    assert editor.text(uri) == typed


async def test_write_file_after_the_person_typed_does_not_clobber(launch, model, workspace):
    """write_file carries the whole file as the agent last read it: a line the person added since
    must not be silently deleted; the agent is told to re-read."""
    path = workspace / "geo.py"
    path.write_text(TEXT)
    editor = await launch()
    uri = editor.open(path)
    loop = asyncio.get_running_loop()
    typed = TEXT + "# the person's note\n"

    def type_then_write(body):
        async def person():
            editor.type_text(uri, typed)
            await settle(editor, uri)
        asyncio.run_coroutine_threadsafe(person(), loop).result(5)
        return tool_call("write_file", {"path": "geo.py", "content": TEXT.replace("3.14", "math.pi")})

    model.add(tool_call("read_file", {"path": "geo.py"}), type_then_write, reply("re-reading"))
    await execute(editor, "agentLsp.runTask", {"task": "use math.pi"})
    _read, write_result = tool_results(model)
    assert "Read it again" in write_result, write_result
    assert editor.text(uri) == typed


async def test_closed_file_changed_on_disk_is_stale(launch, model, workspace):
    path = workspace / "geo.py"
    path.write_text(TEXT)
    editor = await launch()

    def change_disk_then_write(body):
        path.write_text(TEXT + "# changed by git checkout\n")
        return tool_call("write_file", {"path": "geo.py", "content": "x = 1\n"})

    model.add(tool_call("read_file", {"path": "geo.py"}), change_disk_then_write, reply("ok"))
    await execute(editor, "agentLsp.runTask", {"task": "rewrite"})
    _read, write_result = tool_results(model)
    assert "Read it again" in write_result, write_result
    assert path.read_text() == TEXT + "# changed by git checkout\n"


# ---------------------------------------------------------------- encodings

LINE = 's = "😀"; x = old_value\n'
# where old_value starts on that line, counted by hand in each encoding
START = {"utf-16": 14, "utf-8": 16, "utf-32": 13}

ENCODINGS = [
    ("visual-studio-code", None, "utf-16"),  # offers nothing: the LSP default
    ("emacs", None, "utf-32"),  # Emacs 29 offers utf-32 first
    ("neovim@v0.10.0", ["utf-8", "utf-16"], "utf-8"),  # as Neovim 0.11 does
    ("visual-studio-code", ["latin-1", "utf-16"], "utf-16"),  # the first one we know
]


@pytest.mark.parametrize("client,offered,negotiated", ENCODINGS, ids=[f"{c}-{o}" for c, o, _ in ENCODINGS])
async def test_emoji_before_the_edit(client, offered, negotiated, launch, model, workspace):
    path = workspace / "emoji.py"
    text = "# 👩‍💻 header\n" + LINE + "y = 2\n"
    path.write_text(text)
    editor = await launch(client_name=client, encodings=offered)
    assert editor.encoding == negotiated
    uri = editor.open(path)
    model.add(tool_call("edit_file", {"path": "emoji.py", "old": "old_value", "new": "new_value"}), reply("ok"))
    await execute(editor, "agentLsp.runTask", {"task": "rename"})
    (req,) = editor.edit_requests
    (te,) = req.edit.document_changes[-1].edits
    col = START[negotiated]
    assert te.range == rng(1, col, 1, col + len("old_value")), te.range
    expected = text.replace("old_value", "new_value")
    assert editor.text(uri) == expected
    assert path.read_text() == expected


# ---------------------------------------------------------------- minimal edits and new files


async def test_write_file_is_a_line_diff(launch, model, workspace):
    lines = [f"line {i}\n" for i in range(1, 11)]
    path = workspace / "ten.txt"
    path.write_text("".join(lines))
    editor = await launch()
    uri = editor.open(path)
    new = lines.copy()
    new[4] = "line five\n"
    new.insert(8, "inserted\n")
    model.add(tool_call("write_file", {"path": "ten.txt", "content": "".join(new)}), reply("ok"))
    await execute(editor, "agentLsp.runTask", {"task": "tweak"})
    (req,) = editor.edit_requests
    (doc_edit,) = req.edit.document_changes
    assert doc_edit.text_document.version == 1
    edits = [(e.range, e.new_text) for e in doc_edit.edits]
    assert edits == [(rng(4, 0, 5, 0), "line five\n"), (rng(8, 0, 8, 0), "inserted\n")]
    assert editor.text(uri) == "".join(new) == path.read_text()


@pytest.mark.parametrize("client", ["visual-studio-code", "emacs"])
async def test_new_file(client, launch, model, workspace):
    editor = await launch(client_name=client)
    creates = client != "emacs"  # VS Code (and Neovim) advertise resourceOperations "create"; emacs 29 none
    model.add(tool_call("write_file", {"path": "pkg/new.py", "content": "VALUE = 1\n"}), reply("created"))
    await execute(editor, "agentLsp.runTask", {"task": "make it"})
    (req,) = editor.edit_requests
    changes = req.edit.document_changes
    uri = (workspace / "pkg" / "new.py").as_uri()
    if creates:
        assert isinstance(changes[0], types.CreateFile) and changes[0].uri == uri
        changes = changes[1:]
    (doc_edit,) = changes
    assert isinstance(doc_edit, types.TextDocumentEdit)
    assert doc_edit.text_document.uri == uri and doc_edit.text_document.version is None
    (te,) = doc_edit.edits
    # the whole empty document, to line 1 (clamped to its end): Neovim keeps no extra empty line
    assert te.range == rng(0, 0, 1, 0) and te.new_text == "VALUE = 1\n"
    assert (workspace / "pkg" / "new.py").read_text() == "VALUE = 1\n"
    assert tool_results(model) == ["wrote 10 bytes to pkg/new.py"]
