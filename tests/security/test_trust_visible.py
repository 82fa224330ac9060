"""Every question shows all it asks about: escape sequences are shown, never obeyed by the terminal.

A command that erases its own question line (`\\x1b[2K\\r`), a diff whose new text
holds an OSC sequence, a file name with a carriage return, bidi overrides: the person's
terminal (stderr here) must receive them as visible text, and the question whole.
"""

from __future__ import annotations

from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call
from tests.security.util import agent

CONTROLS = ("\x1b", "\r", "\x07", "\x9b", "\u202e", "\x08")


def clean(text: str) -> None:
    for ch in CONTROLS:
        assert ch not in text, f"{ch!r} reached the terminal"


def test_a_command_with_escape_sequences_is_shown_visibly(workspace, model):
    marker = workspace / "ran"
    command = f"touch {marker} #\x1b[2K\r\x1b[1Aecho harmless\x07"
    model.add(tool_call("bash", {"command": command}), reply("denied"))
    r = agent(["run", "go"], cwd=workspace, base_url=model.base_url, stdin="n\n")
    assert r.returncode == 0, r.stderr
    clean(r.stderr)
    assert "^[[2K^M^[[1Aecho harmless^G" in r.stderr
    assert f"touch {marker}" in r.stderr
    assert not marker.exists()


def test_a_long_command_is_asked_about_whole(workspace, model):
    command = "echo start " + "a" * 3000 + " && touch end-marker"
    model.add(tool_call("bash", {"command": command}), reply("denied"))
    r = agent(["run", "go"], cwd=workspace, base_url=model.base_url, stdin="n\n")
    assert "touch end-marker" in r.stderr, "the question was cut before its dangerous end"
    assert not (workspace / "end-marker").exists()


def test_an_edit_diff_with_control_characters_is_shown_visibly(workspace, model):
    (workspace / "a.txt").write_text("hello\n")
    model.add(tool_call("write_file", {"path": "a.txt", "content": "hello\n\x1b]52;c;ZXZpbA==\x07\u202eevil\n"}),
              reply("declined"))
    r = agent(["run", "go"], cwd=workspace, base_url=model.base_url, stdin="n\n")
    assert r.returncode == 0, r.stderr
    clean(r.stderr)
    assert "^[]52;c;ZXZpbA==^G\\u202eevil" in r.stderr
    assert (workspace / "a.txt").read_text() == "hello\n"


def test_a_file_name_and_tool_trace_with_controls_are_shown_visibly(workspace, model):
    name = "x\rREADME.md"
    model.add(tool_call("write_file", {"path": name, "content": "hi\x1b[31m\n"}), reply("declined"))
    r = agent(["run", "go"], cwd=workspace, base_url=model.base_url, stdin="n\n")
    assert r.returncode == 0, r.stderr
    clean(r.stderr)
    assert "x^MREADME.md" in r.stderr


def test_tool_output_in_the_trace_and_answer_is_shown_visibly(workspace, model):
    model.add(tool_call("bash", {"command": "printf 'a\\033[2Jb'"}), reply("the output was a\x1b[2Jb"))
    r = agent(["run", "--yes", "go"], cwd=workspace, base_url=model.base_url)
    assert r.returncode == 0, r.stderr
    clean(r.stderr)
    clean(r.stdout)
    assert "a^[[2Jb" in r.stdout
