"""The agent's memory: remember in one session, read back in the next; the cap; forget; the CLI."""

from __future__ import annotations

import os
import subprocess
import sys

from agent_lsp.agent.state import memory
from tests.helpers import (
    KEY,
    last_tool_results,
    make_session,
    no_violations,  # noqa: F401 (autouse: model.violations == [] after each test)
)
from tests.scripted_model import reply, tool_call


async def test_a_note_from_one_session_is_in_the_next_sessions_first_request(workspace, model, tmp_path):
    model.add(tool_call("remember", {"note": "the check command is make check"}), reply("noted"))
    first = make_session(workspace, model)
    await first.run_turn("remember how to check this project")
    await first.aclose()
    assert last_tool_results(model.requests[1])[0].startswith("remembered (")
    # written in the state dir, keyed by the workspace, not in the repository
    path = memory.memory_path(workspace)
    assert path.is_relative_to(tmp_path / "state") and not any(workspace.iterdir())
    # the first session's prompt was not rewritten
    assert "make check" not in model.requests[1]["messages"][0]["content"]

    model.add(reply("you check with make check"))
    second = make_session(workspace, model)
    await second.run_turn("how do I check?")
    await second.aclose()
    system = model.requests[2]["messages"][0]["content"]
    assert "the check command is make check" in system
    assert memory.memory_path(workspace.parent) != path  # another folder has its own memory


async def test_the_cap_asks_to_condense_and_forget_makes_room(workspace):
    big = "x" * 1000
    for i in range(24):
        assert memory.remember(workspace, f"note {i} {big}").startswith("remembered")
    full = memory.remember(workspace, "one more " + big * 2)
    assert full.startswith("error: the memory is full") and "forget(match)" in full
    assert "one more" not in memory.read(workspace)  # nothing cut, nothing added
    assert memory.forget(workspace, "NOTE 1") == "removed 11 notes; 13 kept"  # note 1, 10..19
    assert memory.remember(workspace, "one more " + big * 2).startswith("remembered")
    assert memory.forget(workspace, "absent").startswith("no note contains 'absent'")


async def test_notes_are_scrubbed(workspace, model):
    model.add(tool_call("remember", {"note": f"the key is {KEY}"}), reply("ok"))
    session = make_session(workspace, model, api_key=KEY)
    await session.run_turn("remember the key")
    await session.aclose()
    text = memory.read(workspace)
    assert KEY not in text and "[redacted]" in text


def test_the_memory_command_prints_and_clears(workspace):
    memory.remember(workspace, "use tabs in the Makefile\nand never spaces")
    env = dict(os.environ)
    run = lambda *a: subprocess.run([sys.executable, "-m", "agent_lsp", "memory", *a], capture_output=True,  # noqa: E731
                                    text=True, env=env, timeout=60)
    out = run("-h")
    assert out.returncode == 0
    out = run(str(workspace))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == str(memory.memory_path(workspace))
    assert any(": use tabs in the Makefile" in ln for ln in lines) and "  and never spaces" in lines
    out = run(str(workspace), "--clear")
    assert out.returncode == 0 and "cleared" in out.stdout
    assert memory.for_prompt(workspace) == ""
    after = run(str(workspace)).stdout.splitlines()
    assert after[1:] == [f"# agent-lsp memory for {workspace.resolve()}"]  # the notes are gone
