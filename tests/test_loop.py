"""The loop against the scripted model: the fix flow, append-only history, concurrency, caps,
cancellation, compaction, AGENTS.md and the transcript."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import time
import uuid
from pathlib import Path

import pytest

from agent_lsp.agent.model import compaction, llm
from agent_lsp.agent.loop import CANCELLED_RESULT, CUT_OFF_NOTE
from agent_lsp.agent.setup import open_session
from agent_lsp.agent.prompt import BASE
from tests.helpers import (
    Conversation,
    RecordingHost,
    assert_paired,
    assert_requests_extend,
    is_summary_request,
    last_tool_results,
    make_session,
    no_violations,  # noqa: F401 (autouse: model.violations == [] after each test)
    pgrep,
    settings_for,
    wait_until,
)
from agent_lsp.terminal.demo import FIZZBUZZ  # the demo's own buggy fizzbuzz
from tests.scripted_model import call, reply, tool_call, tool_calls

PY = shlex.quote(sys.executable)

CHECK = '''from fizzbuzz import fizzbuzz
assert len(fizzbuzz(15)) == 15, "wrong length"
assert fizzbuzz(15)[-1] == "FizzBuzz"
print("2 passed")
'''


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch):
    monkeypatch.setattr(llm, "BACKOFF_BASE", 0.01)


async def close(session) -> None:
    await session.client.aclose()


# ---------------------------------------------------------------- the fix flow


async def test_fix_flow(workspace, model):
    (workspace / "fizzbuzz.py").write_text(FIZZBUZZ)
    (workspace / "check_fizzbuzz.py").write_text(CHECK)
    model.add(
        tool_call("list_files", {"path": "tests"}),
        tool_call("list_files", {}),
        tool_call("bash", {"command": f"{PY} check_fizzbuzz.py"}),
        tool_call("read_file", {"path": "fizzbuzz.py"}),
        tool_call("edit_file", {"path": "fizzbuzz.py", "old": "for i in range(1, n):", "new": "for i in range(1, n + 1):"}),
        tool_call("bash", {"command": f"{PY} check_fizzbuzz.py"}),
        reply("Fixed the off-by-one in fizzbuzz: range(1, n) -> range(1, n + 1). The check passes."),
    )
    host = RecordingHost(confirm=True)
    session = make_session(workspace, model, host)
    result = await session.run_turn("run the tests, fix the bug, run them again")
    await close(session)

    assert result.status == "done" and result.steps == 7
    assert result.answer.startswith("Fixed the off-by-one")
    assert "range(1, n + 1)" in (workspace / "fizzbuzz.py").read_text()
    results = [last_tool_results(r) for r in model.requests[1:]]
    assert results[0][0].startswith("error: not found: tests")
    assert results[1][0].splitlines() == ["check_fizzbuzz.py", "fizzbuzz.py"]
    assert "AssertionError: wrong length" in results[2][0] and results[2][0].endswith("[exit 1]")
    assert results[3][0].startswith("1: def fizzbuzz(n):")
    assert results[4][0].startswith("ok")
    assert results[5][0] == "2 passed\n[exit 0]"
    assert [c[0] for c in host.confirms] == ["bash", "edit_file", "bash"]
    assert [e.text.split("(")[0] for e in host.kinds("tool")] == \
        ["→ list_files", "→ list_files", "→ bash", "→ read_file", "→ edit_file", "→ bash"]
    assert host.kinds("answer")[-1].text == result.answer
    assert "".join(host.texts("text")) == result.answer, "the answer is streamed to the Host"
    first = model.requests[0]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert first[1]["content"] == "run the tests, fix the bug, run them again"
    assert_requests_extend(model.requests)
    assert len({json.dumps(r["tools"]) for r in model.requests}) == 1, "the tool list must be byte-identical"
    assert model.violations == []


async def test_history_carries_over_between_turns(workspace, model):
    (workspace / "a.txt").write_text("A\n")
    model.add(tool_call("read_file", {"path": "a.txt"}), reply("it says A"), reply("you asked about a.txt"))
    session = make_session(workspace, model)
    assert (await session.run_turn("what is in a.txt?")).answer == "it says A"
    assert (await session.run_turn("what did I ask?")).answer == "you asked about a.txt"
    await close(session)
    assert_requests_extend(model.requests)
    last = model.requests[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert last[-1]["content"] == "what did I ask?"
    assert model.violations == []


async def test_the_assistant_message_is_stored_as_received(workspace, model):
    (workspace / "a.txt").write_text("A\n")
    model.add(tool_call("read_file", {"path": "a.txt"}, content="Reading.", reasoning="I should read it."),
              reply("done"))
    session = make_session(workspace, model, stream=False)
    await session.run_turn("go")
    await close(session)
    stored = model.requests[1]["messages"][2]
    assert stored["content"] == "Reading." and stored["reasoning_content"] == "I should read it."
    assert stored["tool_calls"][0]["function"] == {"name": "read_file", "arguments": json.dumps({"path": "a.txt"})}
    assert model.violations == []


async def test_tool_errors_go_back_to_the_model(workspace, model):
    model.add(
        tool_calls(call("launch_rockets", {}), call("read_file", '{"path": '), call("read_file", {"path": "../x"})),
        reply("I will stop guessing."),
    )
    session = make_session(workspace, model)
    result = await session.run_turn("go")
    await close(session)
    assert result.status == "done"
    errors = last_tool_results(model.requests[1])
    assert errors[0].startswith("error: unknown tool 'launch_rockets'; available tools: read_file")
    assert errors[1].startswith("error: arguments are not valid JSON")
    assert errors[2].startswith("error: path escapes the workspace")
    assert model.violations == []


# ---------------------------------------------------------------- concurrency and order


async def test_read_only_calls_run_concurrently(workspace, model):
    for i in range(4):
        (workspace / f"f{i}.txt").write_text(f"file {i}\n")
    model.add(tool_calls(*(call("read_file", {"path": f"f{i}.txt"}) for i in range(4))), reply("read them"))
    host = RecordingHost(read_delay=0.5)
    session = make_session(workspace, model, host)
    t0 = time.monotonic()
    result = await session.run_turn("read all four")
    elapsed = time.monotonic() - t0
    await close(session)
    assert result.status == "done"
    assert host.reads_peak == 4
    assert elapsed < 1.5, f"4 reads of 0.5 s took {elapsed:.2f}s: they ran one after another"
    # results come back in the order of the calls, each paired with its id
    msgs = model.requests[1]["messages"]
    ids = [c["id"] for c in msgs[2]["tool_calls"]]
    assert [m["tool_call_id"] for m in msgs[3:]] == ids
    assert [m["content"] for m in msgs[3:]] == [f"1: file {i}" for i in range(4)]
    assert model.violations == []


async def test_commands_and_writes_keep_their_order(workspace, model):
    (workspace / "f.txt").write_text("old\n")
    model.add(
        tool_calls(
            call("bash", {"command": "sleep 0.3; echo A >> log.txt"}),
            call("bash", {"command": "echo B >> log.txt"}),
            call("write_file", {"path": "f.txt", "content": "new\n"}),
            call("read_file", {"path": "f.txt"}),
            call("grep", {"regex": "^[AB]$", "path": "log.txt"}),
            call("edit_file", {"path": "f.txt", "old": "new", "new": "newer"}),
            call("read_file", {"path": "f.txt"}),
        ),
        reply("done"),
    )
    session = make_session(workspace, model, auto_approve=True)
    await session.run_turn("go")
    await close(session)
    assert (workspace / "log.txt").read_text() == "A\nB\n"
    results = last_tool_results(model.requests[1])
    assert results[0] == "[exit 0]" and results[1] == "[exit 0]"
    assert results[2] == "wrote 4 bytes to f.txt"
    assert results[3] == "1: new", "a read after a write in the same reply must see the write"
    assert results[4] == "log.txt:1: A\nlog.txt:2: B"
    assert results[6] == "1: newer"
    assert model.violations == []


# ---------------------------------------------------------------- step cap and cut-off replies


async def test_step_cap_ends_with_a_call_without_tools(workspace, model):
    (workspace / "a.txt").write_text("A\n")
    model.add(*[tool_call("read_file", {"path": "a.txt"})] * 3, reply("I read a.txt three times; nothing else done."))
    host = RecordingHost()
    session = make_session(workspace, model, host, max_steps=3)
    result = await session.run_turn("loop forever")
    await close(session)
    assert result.status == "stepLimit" and result.steps == 3
    assert result.answer == "I read a.txt three times; nothing else done."
    assert len(model.requests) == 4
    final = model.requests[-1]
    assert "tools" not in final and "tool_choice" not in final
    assert final["messages"][-1]["role"] == "user" and "step limit of 3" in final["messages"][-1]["content"]
    assert all("tools" in r for r in model.requests[:3])
    assert host.kinds("answer")[-1].data["status"] == "stepLimit"
    assert_requests_extend(model.requests)
    assert model.violations == []


async def test_cut_off_tool_call_is_not_stored(workspace, model):
    model.add(
        tool_call("write_file", {"path": "big.py", "content": "print('x')\n" * 50}, finish_reason="length"),
        tool_call("write_file", {"path": "big.py", "content": "print('x')\n"}),
        reply("wrote it in a smaller step"),
    )
    session = make_session(workspace, model, auto_approve=True)
    result = await session.run_turn("write a big file")
    await close(session)
    assert result.status == "done" and result.answer == "wrote it in a smaller step"
    second = model.requests[1]["messages"]
    assert second[2]["role"] == "assistant" and not second[2].get("tool_calls")
    assert second[3] == {"role": "user", "content": CUT_OFF_NOTE}
    assert (workspace / "big.py").read_text() == "print('x')\n"
    assert all(not m.get("tool_calls") or json.loads(m["tool_calls"][0]["function"]["arguments"])
               for m in model.requests[-1]["messages"] if m["role"] == "assistant")
    assert_requests_extend(model.requests)
    assert model.violations == []


async def test_cut_off_plain_answer_says_so(workspace, model):
    model.add(reply("The answer is long and", finish_reason="length"))
    session = make_session(workspace, model)
    result = await session.run_turn("explain")
    await close(session)
    assert result.status == "done"
    assert result.answer.startswith("The answer is long and") and "cut off" in result.answer


# ---------------------------------------------------------------- cancellation


async def test_cancel_during_a_command(workspace, model):
    marker = f"600.{uuid.uuid4().int % 10**9:09d}"
    model.add(
        tool_calls(call("bash", {"command": f"sleep {marker} & sleep {marker}; echo never"}),
                   call("read_file", {"path": "a.txt"})),
        reply("the next turn works"),
    )
    (workspace / "a.txt").write_text("A\n")
    host = RecordingHost()
    session = make_session(workspace, model, host, auto_approve=True, command_timeout=60)
    turn = asyncio.ensure_future(session.run_turn("run the long thing"))
    assert await wait_until(lambda: pgrep(f"sleep {marker}")), "the command never started"
    t0 = time.monotonic()
    turn.cancel()
    result = await turn
    assert time.monotonic() - t0 < 1
    assert result.status == "cancelled"
    assert await wait_until(lambda: not pgrep(f"sleep {marker}"), timeout=2), "the command's processes survived"
    assert_paired(session.messages)
    assert [m["content"] for m in session.messages[-2:]] == [CANCELLED_RESULT, CANCELLED_RESULT]
    result = await session.run_turn("and now?")
    await close(session)
    assert result.status == "done" and result.answer == "the next turn works"
    assert model.violations == [], "the request after a cancel must pass the API's pairing check"
    assert_requests_extend(model.requests)


async def test_cancel_during_a_model_call(workspace, model):
    model.add(reply("I am thinking about this for a very long time", stall=30), reply("fresh answer"))
    host = RecordingHost()
    session = make_session(workspace, model, host)
    turn = asyncio.ensure_future(session.run_turn("think"))
    assert await wait_until(lambda: host.kinds("text")), "no streamed text arrived before the stall"
    t0 = time.monotonic()
    turn.cancel()
    result = await turn
    assert result.status == "cancelled" and time.monotonic() - t0 < 1
    assert await asyncio.to_thread(model.wait_for_disconnect, 3)
    assert model.disconnects == [0]
    assert session.messages[-1]["role"] == "user", "nothing half-received may be stored"
    result = await session.run_turn("again")
    await close(session)
    assert result.answer == "fresh answer"
    assert model.violations == []


async def test_cancel_during_a_model_call_after_tools_ran(workspace, model):
    (workspace / "a.txt").write_text("A\n")
    model.add(tool_call("read_file", {"path": "a.txt"}), reply("slow", stall=30), reply("ok"))
    host = RecordingHost()
    session = make_session(workspace, model, host)
    turn = asyncio.ensure_future(session.run_turn("go"))
    assert await wait_until(lambda: len(host.kinds("text")) > 0)
    turn.cancel()
    assert (await turn).status == "cancelled"
    assert_paired(session.messages)
    assert (await session.run_turn("next")).answer == "ok"
    await close(session)
    assert model.violations == []


async def test_cancel_while_waiting_for_a_confirmation(workspace, model):
    class SlowPerson(RecordingHost):
        async def confirm(self, tool, args, preview):
            self.confirms.append((tool, args, preview))
            await asyncio.Event().wait()

    model.add(tool_call("bash", {"command": "touch ran.txt"}), reply("ok"))
    host = SlowPerson()
    session = make_session(workspace, model, host)
    turn = asyncio.ensure_future(session.run_turn("go"))
    assert await wait_until(lambda: host.confirms)
    turn.cancel()
    assert (await turn).status == "cancelled"
    assert not (workspace / "ran.txt").exists()
    assert session.messages[-1]["content"] == CANCELLED_RESULT
    assert (await session.run_turn("next")).answer == "ok"
    await close(session)
    assert model.violations == []


# ---------------------------------------------------------------- compaction


def big_files(ws: Path, n: int, size: int = 2_900) -> None:
    for i in range(n):
        line = f"file {i} " + "z" * 70 + "\n"
        (ws / f"f{i}.txt").write_text(line * (size // len(line)))


async def test_compaction_keeps_system_prompt_cuts_on_a_pairing_boundary_once_per_step(workspace, model):
    big_files(workspace, 12, size=1_500)
    rounds = [tool_calls(call("read_file", {"path": f"f{2 * i}.txt"}), call("read_file", {"path": f"f{2 * i + 1}.txt"}))
              for i in range(3)]  # three rounds need two compactions: the most one task may have
    conv = Conversation(*rounds, reply("read everything"))
    model.add(*[conv] * 30)
    host = RecordingHost()
    session = make_session(workspace, model, host, context_window=2_500, transcript=True)
    system = session.messages[0]
    task = "read six files, two at a time"
    result = await session.run_turn(task)
    await close(session)

    assert result.status == "done" and conv.replies == []
    assert conv.summaries >= 2 and session.compactions == conv.summaries
    assert model.violations == []
    kinds = ["summary" if is_summary_request(r) else "main" for r in model.requests]
    assert "summary,summary" not in ",".join(kinds), "compaction ran twice in one step"
    mains = [r for r in model.requests if not is_summary_request(r)]
    assert len(mains) == 4
    for r in mains:
        msgs = r["messages"]
        assert msgs[0] == system, "the system prompt must be kept verbatim"
        assert_paired(msgs)
    compacted = [r for r in mains if r["messages"][1]["content"].startswith("[Summary of the earlier part")]
    assert compacted, "no main request went out compacted"
    for r in compacted:
        summary = r["messages"][1]["content"]
        assert conv.summary in summary
        assert task in summary, "the request being worked on must survive compaction verbatim"
        assert r["messages"][2]["role"] == "assistant"
    for r in model.requests:
        if is_summary_request(r):
            assert "tools" not in r
    records = [json.loads(line) for line in session.transcript.path.read_text().splitlines()]
    assert sum(rec["kind"] == "compaction" for rec in records) == conv.summaries


async def test_compaction_summary_input_is_capped(workspace, model):
    big_files(workspace, 8)
    conv = Conversation(*[tool_call("read_file", {"path": f"f{i}.txt"}) for i in range(8)],
                        reply("all read"), reply("the second turn answer"))
    model.add(*[conv] * 20)
    session = make_session(workspace, model)
    first_task = "TASK-ONE: read the eight files"
    assert (await session.run_turn(first_task)).status == "done"
    assert conv.summaries == 0
    session.settings.context_window = 3_000  # now the history is far over 75% of the window
    result = await session.run_turn("TASK-TWO: and now?")
    await close(session)
    assert result.answer == "the second turn answer"
    summaries = [r for r in model.requests if is_summary_request(r)]
    assert len(summaries) == 1
    text = summaries[0]["messages"][1]["content"]
    old_chars = sum(len(m.get("content") or "") for m in model.requests[8]["messages"])
    assert old_chars > 20_000
    assert len(text) <= 8_000 + 100, len(text)
    assert first_task in text, "the summary input keeps the beginning (the goal)"
    assert "[middle of the conversation cut]" in text
    after = model.requests[-1]["messages"]
    assert after[1]["content"].startswith("[Summary of the earlier part") and after[-1]["content"] == "TASK-TWO: and now?"
    assert_paired(after)
    assert model.violations == []


def test_cut_point_walks_back_to_a_pairing_boundary():
    def msgs(roles):
        return [{"role": r} for r in roles]

    history = msgs(["system", "user", "assistant", "tool", "tool", "assistant", "tool", "tool", "tool", "assistant"])
    cut = compaction.cut_point(history, keep_recent=6)
    assert cut == 2 and history[cut]["role"] == "assistant"
    history = msgs(["system", "user", "assistant", "tool", "user", "assistant", "tool", "tool", "tool", "tool", "tool"])
    cut = compaction.cut_point(history, keep_recent=6)
    assert history[cut]["role"] == "assistant" and cut == 5
    assert compaction.cut_point(msgs(["system", "user", "assistant"])) is None


async def test_context_overflow_compacts_and_retries_once(workspace, model):
    big_files(workspace, 4, size=600)
    overflow = {"status": 400, "error": {"message": "request (9000 tokens) exceeds the available context size (4096 tokens)",
                                         "type": "exceed_context_size_error", "code": 400}}
    conv = Conversation(*[tool_call("read_file", {"path": f"f{i}.txt"}) for i in range(4)], reply("first done"),
                        overflow, reply("second done"))
    model.add(*[conv] * 20)
    host = RecordingHost()
    session = make_session(workspace, model, host)
    assert (await session.run_turn("read them")).status == "done"
    result = await session.run_turn("what now?")
    await close(session)
    assert result.status == "done" and result.answer == "second done"
    kinds = ["summary" if is_summary_request(r) else "main" for r in model.requests]
    assert kinds[-3:] == ["main", "summary", "main"] and kinds.count("summary") == 1
    retry = model.requests[-1]["messages"]
    assert retry[1]["content"].startswith("[Summary") and retry[-1]["content"] == "what now?"
    assert_paired(retry)
    assert any("too long" in t for t in host.texts("status"))
    assert model.violations == []


async def test_context_overflow_twice_is_an_error_not_a_loop(workspace, model):
    big_files(workspace, 4, size=600)
    overflow = {"status": 400, "error": {"message": "maximum context length exceeded",
                                         "code": "context_length_exceeded"}}
    conv = Conversation(*[tool_call("read_file", {"path": f"f{i}.txt"}) for i in range(4)], reply("first done"),
                        overflow, overflow, reply("third turn"))
    model.add(*[conv] * 20)
    session = make_session(workspace, model)
    await session.run_turn("read them")
    n = len(model.requests)
    result = await session.run_turn("what now?")
    assert result.status == "error" and "context" in result.answer
    assert len(model.requests) == n + 3  # the call, the summary, the one retry
    assert (await session.run_turn("still there?")).answer == "third turn"
    await close(session)
    assert model.violations == []


async def test_context_overflow_with_nothing_to_compact(workspace, model):
    model.add({"status": 400, "error": {"message": "prompt is too long", "type": "exceed_context_size_error"}})
    session = make_session(workspace, model)
    result = await session.run_turn("x" * 100)
    await close(session)
    assert result.status == "error" and "nothing left to compact" in result.answer
    assert len(model.requests) == 1


# ---------------------------------------------------------------- AGENTS.md and the transcript


async def test_agents_md_joins_the_system_prompt(workspace, model):
    (workspace / "AGENTS.md").write_text("# House rules\nAlways run `make check` before answering. RULE-7731\n")
    model.add(reply("ok"), reply("ok again"))
    session = make_session(workspace, model)
    await session.run_turn("hi")
    system = model.requests[0]["messages"][0]["content"]
    assert system.startswith(BASE.format(root=workspace.resolve()))
    assert "RULE-7731" in system and "AGENTS.md" in system
    (workspace / "AGENTS.md").write_text("new rules RULE-8842\n")
    session.reset()
    await session.run_turn("hi again")
    await close(session)
    system = model.requests[1]["messages"][0]["content"]
    assert "RULE-8842" in system and "RULE-7731" not in system
    assert model.violations == []


async def test_no_agents_md_no_extra_section(workspace, model):
    model.add(reply("ok"))
    session = make_session(workspace, model)
    await session.run_turn("hi")
    await close(session)
    assert model.requests[0]["messages"][0]["content"] == BASE.format(root=workspace.resolve())


async def test_transcript_is_jsonl_under_xdg_state(workspace, model, tmp_path):
    (workspace / "a.txt").write_text("A\n")
    model.add(tool_call("read_file", {"path": "a.txt"}), reply("done"))
    session = open_session(workspace, RecordingHost(), settings_for(model))
    await session.run_turn("read a.txt")
    await close(session)
    state = tmp_path / "state" / "agent-lsp"
    files = list(state.glob("*.jsonl"))
    assert files == [session.transcript.path]
    records = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert [r["data"] for r in records if r["kind"] == "message"] == session.messages
    assert records[-1]["kind"] == "turn_end" and records[-1]["data"]["status"] == "done"
