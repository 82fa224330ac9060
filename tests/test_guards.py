"""Budgets and loop guards, each against the scripted model: tokens shown as they go,
maxTaskTokens, the loop guard (warn at 3, stop at 4) and at most two compactions per task."""

from __future__ import annotations

import pytest

from agent_lsp.agent import guards
from agent_lsp.agent.model import llm
from agent_lsp.agent.settings import Settings
from tests.helpers import (
    Conversation,
    RecordingHost,
    assert_paired,
    is_summary_request,
    last_tool_results,
    make_session,
    no_violations,  # noqa: F401
)
from tests.scripted_model import call, reply, tool_call, tool_calls


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch):
    monkeypatch.setattr(llm, "BACKOFF_BASE", 0.01)


async def turn(workspace, model, host, task="go", **settings):
    session = make_session(workspace, model, host, **settings)
    try:
        return session, await session.run_turn(task)
    finally:
        await session.client.aclose()


# ------------------------------------------------------------------ tokens so far


async def test_usage_events_count_the_tasks_tokens(workspace, model):
    (workspace / "a.txt").write_text("A\n")
    model.add(tool_call("read_file", {"path": "a.txt"}), reply("it says A"))
    host = RecordingHost()
    session, result = await turn(workspace, model, host)
    usage = host.kinds("usage")
    assert len(usage) == 2 and result.status == "done"
    first, last = usage[0].data, usage[-1].data
    assert 0 < first["promptTokens"] < last["promptTokens"] and last["completionTokens"] > first["completionTokens"]
    assert last["estimated"] is False and "(estimated)" not in usage[-1].text
    assert usage[-1].text == f"tokens: {last['promptTokens']:,} prompt + {last['completionTokens']:,} completion"
    # a new task starts from zero
    model.add(reply("again"))
    await session.run_turn("once more")
    await session.client.aclose()
    assert host.kinds("usage")[-1].data["promptTokens"] < last["promptTokens"] + first["promptTokens"] * 10
    assert host.kinds("usage")[-1].data["completionTokens"] < last["completionTokens"]


@pytest.mark.parametrize("stream", [True, False])
async def test_tokens_are_estimated_and_marked_when_the_server_sends_none(workspace, model, stream):
    model.add(reply("no counts from me", no_usage=True))
    host = RecordingHost()
    await turn(workspace, model, host, stream=stream)
    (usage,) = host.kinds("usage")
    assert usage.data["estimated"] is True and usage.text.endswith("(estimated)")
    assert usage.data["promptTokens"] > 100  # the system prompt alone is more than that


# ------------------------------------------------------------------ maxTaskTokens


async def test_max_task_tokens_stops_and_summarises(workspace, model):
    (workspace / "a.txt").write_text("A\n" * 1000)  # ~1,700 tokens per read
    model.add(*[tool_call("read_file", {"path": "a.txt"})] * 3, reply("Summary: I read a.txt a few times."))
    host = RecordingHost()
    session, result = await turn(workspace, model, host, max_task_tokens=3_000)
    assert result.status == "tokenLimit"
    assert result.answer.startswith("Summary: I read a.txt")
    assert "over maxTaskTokens (3,000)" in result.answer
    last = model.requests[-1]
    assert "tools" not in last and "maxTaskTokens" in last["messages"][-1]["content"]
    assert len(model.requests) < 5, "it stopped before the script ran out"
    assert any("maxTaskTokens" in t for t in host.texts("status"))
    assert_paired(last["messages"])


def test_max_task_tokens_defaults_off_and_zero_means_off():
    s = Settings()
    assert s.max_task_tokens == 0
    assert s.overlay({"maxTaskTokens": 50_000}) == [] and s.max_task_tokens == 50_000
    assert s.overlay({"maxTaskTokens": 0}) == [] and s.max_task_tokens == 0
    assert s.overlay({"maxTaskTokens": "lots"}) and s.max_task_tokens == 0


# ------------------------------------------------------------------ the loop guard


async def test_the_same_failing_call_warns_at_three_and_ends_the_task_at_four(workspace, model):
    failing = tool_call("bash", {"command": "echo run $RANDOM; exit 3"})  # a varying number: the same failure
    model.add(*[failing] * 4, reply("never asked"))
    host = RecordingHost()
    session, result = await turn(workspace, model, host, auto_approve=True)
    assert result.status == "loopGuard"
    assert "failed the same way 4 times" in result.answer
    results = [last_tool_results(r)[0] for r in model.requests[1:]]
    assert len(results) == 3, "the fourth failure ends the task without another model call"
    assert "[loop guard]" not in results[0] and "[loop guard]" not in results[1]
    assert "[loop guard] This exact call has now failed the same way 3 times" in results[2]
    assert model.remaining == 1
    assert_paired(session.messages)
    # the session goes on: the next task starts clean
    model.add(reply("fine"))
    await session.run_turn("something else")
    await session.client.aclose()


async def test_different_failures_or_successes_do_not_trip_the_guard(workspace, model):
    (workspace / "n").write_text("0")
    # the same call failing differently each time (a counter in the output) is not a loop
    bumping = tool_call("bash", {"command": "n=$(cat n); echo $((n+1)) > n; echo -n step-; cat n | tr 0-9 a-j; exit 1"})
    model.add(*[bumping] * 5, reply("done"))
    host = RecordingHost()
    _, result = await turn(workspace, model, host, auto_approve=True)
    assert result.status == "done"
    assert all("[loop guard]" not in last_tool_results(r)[0] for r in model.requests[1:])


# ------------------------------------------------------------------ compactions


def big_files(ws, n, size):
    for i in range(n):
        line = f"file {i} " + "z" * 70 + "\n"
        (ws / f"f{i}.txt").write_text(line * (size // len(line)))


async def test_a_third_compaction_ends_the_task_with_a_summary(workspace, model):
    big_files(workspace, 12, size=1_500)
    rounds = [tool_calls(call("read_file", {"path": f"f{2 * i}.txt"}), call("read_file", {"path": f"f{2 * i + 1}.txt"}))
              for i in range(6)]
    conv = Conversation(*rounds, reply("never reached"))
    model.add(*[conv] * 30)
    host = RecordingHost()
    session, result = await turn(workspace, model, host, task="read all twelve files", context_window=2_500)
    assert result.status == "compactionLimit"
    assert conv.summaries == guards.MAX_COMPACTIONS == 2
    assert "after 2 compactions" in result.answer
    last = model.requests[-1]
    assert not is_summary_request(last) and "tools" not in last
    assert "compactions in this task" in last["messages"][-1]["content"]
    assert conv.replies, "the task stopped before reading everything"
    assert_paired(session.messages)


async def test_a_failing_summary_at_the_compaction_limit_is_an_error_not_a_crash(workspace, model):
    big_files(workspace, 12, size=1_500)
    rounds = [tool_calls(call("read_file", {"path": f"f{2 * i}.txt"}), call("read_file", {"path": f"f{2 * i + 1}.txt"}))
              for i in range(6)]
    conv = Conversation(*rounds)

    def script(body):
        if "compactions in this task" in str(body["messages"][-1].get("content")):
            return {"status": 500, "error": {"message": "upstream down"}}
        return conv(body)

    model.add(*[script] * 30)
    host = RecordingHost()
    session, result = await turn(workspace, model, host, task="read all twelve files", context_window=2_500)
    assert result.status == "error" and "500" in result.answer
    assert conv.summaries == 2
