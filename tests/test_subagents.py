"""spawn_agent against the scripted model: a fresh read-only child, only its answer comes back,
children in parallel, cancel through them, nested events and a marked transcript."""

from __future__ import annotations

import asyncio
import json
import time

from agent_lsp.agent.model import llm
from agent_lsp.agent.loop import CANCELLED_RESULT
from agent_lsp.agent.tools.subagents import CHILD_PROMPT, NEST
from tests.helpers import (
    RecordingHost,
    assert_paired,
    last_tool_results,
    make_session,
    no_violations,  # noqa: F401 (autouse: model.violations == [] after each test)
    wait_until,
)
from tests.scripted_model import call, reply, tool_call, tool_calls

SECRET_LINE = "the answer is hidden in notes.txt: 42"


def is_child(body: dict) -> bool:
    return body["messages"][0]["content"].startswith(CHILD_PROMPT.split("{root}")[0])


def names(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


async def test_the_child_has_only_read_tools_and_only_its_answer_returns(workspace, model):
    (workspace / "notes.txt").write_text(SECRET_LINE + "\n")
    model.add(
        tool_call("spawn_agent", {"task": "find the answer in this folder"}, id="call_parent1"),
        tool_call("grep", {"pattern": "answer"}),  # the child's steps
        tool_call("read_file", {"path": "notes.txt"}),
        reply("The answer is 42 (notes.txt line 1)."),
        reply("My helper says 42."),  # the parent again
    )
    host = RecordingHost()
    session = make_session(workspace, model, host, transcript=True)
    result = await session.run_turn("what is the answer?")
    await session.aclose()
    assert result.status == "done" and result.answer == "My helper says 42."

    parent_first, child_first, _, child_last, parent_next = model.requests
    assert not is_child(parent_first) and is_child(child_first)
    assert names(child_first) == ["read_file", "list_files", "grep"]  # no writes, bash, ask_user, spawn_agent
    assert "spawn_agent" in names(parent_first)
    assert child_first["messages"][1] == {"role": "user", "content": "find the answer in this folder"}
    assert len(child_first["messages"]) == 2  # a fresh context: nothing of the parent's conversation
    assert "what is the answer?" not in json.dumps(child_first["messages"])

    (answer,) = last_tool_results(parent_next)
    assert answer == "Files the helper read: notes.txt\n\nThe answer is 42 (notes.txt line 1)."
    history = json.dumps(parent_next["messages"])
    assert SECRET_LINE not in history  # the child's tool results never reach the parent
    assert "find the answer in this folder" in history  # (its task, as the parent's own call)
    assert_paired(parent_next["messages"])

    # nested progress: the child's steps name the parent's call
    nested = [e for e in host.events if e.data.get("parent") == "call_parent1"]
    assert [e.data["name"] for e in nested if e.kind == "tool"] == ["grep", "read_file"]
    assert all(e.text.startswith(NEST) for e in nested)
    assert not any(e.kind in ("text", "answer") for e in nested)

    # the transcript holds the child's messages, marked with the parent call's id
    records = [json.loads(line) for line in session.transcript.path.read_text().splitlines()]
    child = [r for r in records if r["kind"] == "subagent_message"]
    assert child and all(r["data"]["parent"] == "call_parent1" for r in child)
    assert any(SECRET_LINE in json.dumps(r) for r in child)
    assert not any(SECRET_LINE in json.dumps(r) for r in records if r["kind"] == "message")


async def test_children_run_in_parallel(workspace, model):
    for name in ("a.txt", "b.txt"):
        (workspace / name).write_text(f"content of {name}\n")

    def answer(body):
        if not is_child(body):
            return {"content": "both done"}
        task = body["messages"][1]["content"]
        if body["messages"][-1]["role"] == "tool":
            return {"content": f"read {task}"}
        return {"tool_calls": [{"name": "read_file", "arguments": {"path": task}}]}

    model.add(tool_calls(call("spawn_agent", {"task": "a.txt"}), call("spawn_agent", {"task": "b.txt"})),
              *[answer] * 5)
    host = RecordingHost(read_delay=0.5)
    session = make_session(workspace, model, host)
    started = time.monotonic()
    await session.run_turn("read both, in parallel")
    took = time.monotonic() - started
    await session.aclose()
    assert host.reads_peak == 2, "the children's reads did not overlap"
    assert took < 2.0, took
    assert last_tool_results(model.requests[-1]) == [
        "Files the helper read: a.txt\n\nread a.txt", "Files the helper read: b.txt\n\nread b.txt"]


async def test_cancel_during_a_child_leaves_the_pairing_valid(workspace, model):
    (workspace / "slow.txt").write_text("slow\n")
    model.add(
        tool_call("spawn_agent", {"task": "read slow.txt"}),
        tool_call("read_file", {"path": "slow.txt"}),  # the child, then stuck in a 30 s read
        reply("after the cancel"),
    )
    host = RecordingHost(read_delay=30)
    session = make_session(workspace, model, host)
    turn = asyncio.ensure_future(session.run_turn("go"))
    assert await wait_until(lambda: host.reads_active == 1, timeout=10)
    started = time.monotonic()
    turn.cancel()
    result = await asyncio.wait_for(turn, 5)
    assert result.status == "cancelled" and time.monotonic() - started < 1.0
    assert session.messages[-1] == {"role": "tool", "tool_call_id": session.messages[-2]["tool_calls"][0]["id"],
                                    "content": CANCELLED_RESULT}
    assert_paired(session.messages)
    assert (await session.run_turn("go on")).status == "done"  # the next request is valid (no_violations)
    await session.aclose()


async def test_the_child_has_its_own_step_cap(workspace, model, monkeypatch):
    monkeypatch.setattr(llm, "BACKOFF_BASE", 0.01)
    model.add(
        tool_call("spawn_agent", {"task": "list forever"}),
        tool_call("list_files", {}), tool_call("list_files", {}),
        reply("I stopped: two listings done."),  # the child's forced summary (no tools offered)
        reply("ok"),
    )
    session = make_session(workspace, model, subagent_max_steps=2)
    await session.run_turn("go")
    await session.aclose()
    summary_request = model.requests[3]
    assert is_child(summary_request) and "tools" not in summary_request
    (out,) = last_tool_results(model.requests[4])
    assert "(the helper stopped at its step limit of 2 tool rounds)" in out and out.endswith("two listings done.")


async def test_the_childs_tokens_count_in_the_parents_turn(workspace, model):
    model.add(tool_call("spawn_agent", {"task": "say hi"}), reply("hi"), reply("the helper said hi"))
    session = make_session(workspace, model)
    await session.run_turn("go")
    await session.aclose()
    assert session.usage.calls == 3  # two model calls of the parent, one of the child
