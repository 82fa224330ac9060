"""The model client against the scripted server: streaming, odd servers, retries, errors, the key."""

from __future__ import annotations

import asyncio
import json
import time
from email.utils import formatdate

import pytest

from agent_lsp.agent.model import llm
from agent_lsp.agent.model.llm import ModelClient, ModelError
from agent_lsp.agent.setup import open_session
from tests.helpers import KEY, RecordingHost, make_session, no_violations, settings_for  # noqa: F401
from tests.scripted_model import ScriptedModel, call, reply, tool_call, tool_calls

MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}]
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {}}}}]


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch):
    monkeypatch.setattr(llm, "BACKOFF_BASE", 0.01)


def client_for(model, **settings) -> tuple[ModelClient, list[str]]:
    statuses: list[str] = []
    c = ModelClient(settings_for(model, **settings), on_status=statuses.append)
    return c, statuses


async def complete(model, messages=MESSAGES, tools=TOOLS, **settings):
    c, statuses = client_for(model, **settings)
    pieces: list[str] = []
    try:
        r = await c.complete(messages, tools, pieces.append)
    finally:
        await c.aclose()
    return r, pieces, statuses


# ---------------------------------------------------------------- streaming and shapes


async def test_streaming_reassembles_text_and_tool_calls(model):
    args_a = {"path": "src/some/long/path/module.py", "start": 10, "end": 250}
    args_b = {"regex": r"def \w+\(", "path": "."}
    model.add(tool_calls(call("read_file", args_a), call("grep", args_b), content="Let me look at the code first."))
    r, pieces, _ = await complete(model)
    assert model.requests[0]["stream"] is True and model.requests[0]["tool_choice"] == "auto"
    assert len(pieces) > 3 and "".join(pieces) == "Let me look at the code first."
    msg = r.message
    assert msg["role"] == "assistant" and msg["content"] == "Let me look at the code first."
    assert [c["function"]["name"] for c in msg["tool_calls"]] == ["read_file", "grep"]
    assert [json.loads(c["function"]["arguments"]) for c in msg["tool_calls"]] == [args_a, args_b]
    assert all(c["id"].startswith("call_") and c["type"] == "function" for c in msg["tool_calls"])
    assert r.finish_reason == "tool_calls" and not r.truncated_tool_call


async def test_dict_arguments_become_a_json_string(model):
    model.add(tool_call("read_file", {"path": "a.py", "end": 3}, args_as_dict=True))
    r, _, _ = await complete(model)
    args = r.message["tool_calls"][0]["function"]["arguments"]
    assert isinstance(args, str) and json.loads(args) == {"path": "a.py", "end": 3}


async def test_dict_arguments_non_streaming_round_trip_as_strings(model, workspace):
    (workspace / "a.py").write_text("x\n")
    model.add(tool_call("read_file", {"path": "a.py"}, args_as_dict=True), reply("done"))
    session = make_session(workspace, model, stream=False)
    result = await session.run_turn("read it")
    await session.client.aclose()
    assert result.status == "done"
    assert model.violations == []
    sent = model.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert isinstance(sent, str) and json.loads(sent) == {"path": "a.py"}


async def test_llamacpp_ids_are_kept_verbatim(model, workspace):
    (workspace / "a.py").write_text("x\n")
    model.add(tool_calls(call("read_file", {"path": "a.py"}), call("list_files", {}), id_style="llamacpp"),
              reply("ok"))
    session = make_session(workspace, model)
    assert (await session.run_turn("look")).status == "done"
    await session.client.aclose()
    assistant = model.requests[1]["messages"][2]
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert all(len(i) == 32 and i.isalnum() and not i.startswith("call_") for i in ids)
    assert [m["tool_call_id"] for m in model.requests[1]["messages"][3:5]] == ids
    assert model.violations == []


@pytest.mark.parametrize("stream", [True, False])
async def test_usage_is_captured(model, stream):
    model.add(reply("hello there"))
    r, _, _ = await complete(model, stream=stream)
    assert r.usage is not None and r.usage["completion_tokens"] >= 1 and r.usage["prompt_tokens"] > 0
    assert r.usage["total_tokens"] == r.usage["prompt_tokens"] + r.usage["completion_tokens"]


async def test_non_streaming_mode(model):
    model.add(tool_calls(call("read_file", {"path": "a.py"}), content="reading"), reply("plain answer"))
    r, pieces, _ = await complete(model, stream=False)
    body = model.requests[0]
    assert "stream" not in body and "stream_options" not in body
    assert r.message["tool_calls"][0]["function"]["name"] == "read_file"
    assert json.loads(r.message["tool_calls"][0]["function"]["arguments"]) == {"path": "a.py"}
    assert r.finish_reason == "tool_calls" and pieces == ["reading"]
    r, pieces, _ = await complete(model, stream=False)
    assert r.message["content"] == "plain answer" and pieces == ["plain answer"]
    assert model.violations == []


async def test_no_tools_means_no_tool_choice(model):
    model.add(reply("summary"))
    await complete(model, tools=None)
    assert "tools" not in model.requests[0] and "tool_choice" not in model.requests[0]
    assert model.violations == []


@pytest.mark.parametrize("stream", [True, False])
async def test_cut_off_tool_call_is_flagged(model, stream):
    model.add(tool_call("write_file", {"path": "big.py", "content": "x" * 200}, finish_reason="length"))
    r, _, _ = await complete(model, stream=stream)
    assert r.finish_reason == "length" and r.truncated_tool_call


# ---------------------------------------------------------------- retries


@pytest.mark.parametrize("fault", [
    {"status": 500},
    {"status": 503, "body": "upstream overloaded"},
    {"status": 429},
    {"drop": True},
    {"truncate": True, "content": "half an answ"},
    {"stream_error": {"message": "slot unavailable", "code": 503}},
], ids=["500", "503", "429", "drop", "truncate", "stream_error_503"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_transient_faults_are_retried(model, fault, stream):
    model.add(fault, fault, reply("finally"))
    r, _, statuses = await complete(model, max_retries=3, stream=stream)
    assert r.message["content"] == "finally"
    assert len(model.requests) == 3
    assert len(statuses) == 2 and all("retrying" in s for s in statuses)
    assert "attempt 2/4" in statuses[0] and "attempt 3/4" in statuses[1]


async def test_read_timeout_is_retried(model):
    model.add(reply("slow", stall=5), reply("fast"))
    t0 = time.monotonic()
    r, _, _ = await complete(model, max_retries=1, request_timeout=0.5)
    assert r.message["content"] == "fast" and time.monotonic() - t0 < 3


async def test_retry_after_seconds_is_honoured(model):
    model.add({"status": 429, "retry_after": "1"}, reply("ok"))
    t0 = time.monotonic()
    r, _, statuses = await complete(model, max_retries=2)
    elapsed = time.monotonic() - t0
    assert r.message["content"] == "ok"
    assert 0.95 <= elapsed < 2.5, elapsed
    assert "retrying in 1.0s" in statuses[0]


async def test_retry_after_http_date_is_honoured(model):
    model.add({"status": 503, "retry_after": formatdate(time.time() + 2, usegmt=True)}, reply("ok"))
    t0 = time.monotonic()
    r, _, _ = await complete(model, max_retries=2)
    elapsed = time.monotonic() - t0
    assert r.message["content"] == "ok"
    assert 0.9 <= elapsed < 3.5, elapsed


async def test_attempts_run_out_with_one_clear_line(model):
    body = {"message": "The server is overloaded right now. Please retry later.", "type": "server_error"}
    model.add(*[{"status": 502, "error": body}] * 3)
    with pytest.raises(ModelError) as info:
        await complete(model, max_retries=2)
    msg = str(info.value)
    assert len(model.requests) == 3
    assert "\n" not in msg
    assert msg.startswith("model request failed after 3 attempts: HTTP 502")
    assert "The server is overloaded right now" in msg
    assert info.value.status == 502


async def test_client_errors_are_not_retried(model):
    model.add({"status": 400, "error": {"message": "Invalid value for 'temperature'", "type": "invalid_request_error"}},
              reply("never"))
    with pytest.raises(ModelError) as info:
        await complete(model, max_retries=3)
    assert len(model.requests) == 1
    assert str(info.value).startswith("HTTP 400: ") and "Invalid value for 'temperature'" in str(info.value)


async def test_401_and_404_say_what_to_check(model):
    model.add({"status": 401}, {"status": 404})
    with pytest.raises(ModelError, match="check the API key"):
        await complete(model, max_retries=3)
    with pytest.raises(ModelError, match="check the base URL and the model name"):
        await complete(model, max_retries=3)
    assert len(model.requests) == 2


async def test_unreachable_endpoint_is_one_line(model):
    model.stop()  # nothing listens there any more
    with pytest.raises(ModelError) as info:
        await complete(model, max_retries=1)
    msg = str(info.value)
    assert msg.startswith("model request failed after 2 attempts: cannot reach the model at " + model.base_url)
    assert "\n" not in msg


async def test_error_object_inside_a_200_stream(model):
    model.add({"stream_error": {"message": "model crashed while decoding", "type": "server_error"}}, reply("never"))
    with pytest.raises(ModelError) as info:
        await complete(model, max_retries=3)
    assert str(info.value) == "the model server reported an error: model crashed while decoding"
    assert len(model.requests) == 1


@pytest.mark.parametrize("fault", [
    {"status": 400, "error": {"message": "request (9000 tokens) exceeds the available context size (4096 tokens)",
                              "type": "exceed_context_size_error", "code": 400}},
    {"status": 400, "error": {"message": "This model's maximum context length is 128000 tokens.",
                              "type": "invalid_request_error", "code": "context_length_exceeded"}},
    {"stream_error": {"message": "context overflow", "type": "exceed_context_size_error"}},
], ids=["llamacpp", "openai", "in_stream"])
async def test_context_overflow_is_flagged_not_retried(model, fault):
    model.add(fault, reply("never"))
    with pytest.raises(ModelError) as info:
        await complete(model, max_retries=3)
    assert info.value.overflow
    assert len(model.requests) == 1


async def test_stream_ending_without_finish_reason_is_an_error(model, workspace):
    model.add({"truncate": True, **tool_call("write_file", {"path": "x.py", "content": "print(1)\n" * 20})})
    model.add(reply("next turn works"))
    host = RecordingHost()
    session = make_session(workspace, model, host)
    result = await session.run_turn("write it")
    assert result.status == "error"
    assert "broke mid-reply" in result.answer and "\n" not in result.answer
    assert not any(m.get("tool_calls") for m in session.messages), "a half tool call must not be stored"
    assert not (workspace / "x.py").exists()
    assert host.texts("error") == [result.answer]
    result = await session.run_turn("again")
    await session.client.aclose()
    assert result.status == "done" and result.answer == "next turn works"
    assert model.violations == []


async def test_a_cleanly_ended_stream_without_finish_reason_is_an_error(model, workspace):
    """[DONE] arrives but no finish_reason ever did: an error (retried), never a half tool call."""
    model.add({"no_finish": True, **tool_call("bash", {"command": "touch ran"})})
    model.add({"no_finish": True, **tool_call("bash", {"command": "touch ran"})})
    model.add(reply("next turn works"))
    session = make_session(workspace, model, max_retries=1)
    result = await session.run_turn("do it")
    assert result.status == "error"
    assert "without a finish reason" in result.answer and "after 2 attempts" in result.answer
    assert not any(m.get("tool_calls") for m in session.messages)
    assert not (workspace / "ran").exists()
    result = await session.run_turn("again")
    await session.client.aclose()
    assert result.status == "done" and result.answer == "next turn works"


async def test_cancel_during_backoff_is_prompt(model):
    model.add({"status": 429, "retry_after": "30"}, reply("never"))
    c, statuses = client_for(model, max_retries=3)
    task = asyncio.ensure_future(c.complete(MESSAGES, TOOLS))
    for _ in range(200):
        if statuses:
            break
        await asyncio.sleep(0.01)
    assert statuses and "retrying in 30.0s" in statuses[0]
    t0 = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - t0 < 1
    await c.aclose()
    assert len(model.requests) == 1


async def test_cancel_during_backoff_ends_the_turn_and_the_session_goes_on(model, workspace):
    model.add({"status": 503, "retry_after": "30"}, reply("second turn"))
    host = RecordingHost()
    session = make_session(workspace, model, host, max_retries=3)
    turn = asyncio.ensure_future(session.run_turn("first"))
    for _ in range(200):
        if host.kinds("status"):
            break
        await asyncio.sleep(0.01)
    t0 = time.monotonic()
    turn.cancel()
    result = await turn
    assert result.status == "cancelled" and time.monotonic() - t0 < 1
    result = await session.run_turn("second")
    await session.client.aclose()
    assert result.answer == "second turn"
    assert model.violations == []


async def test_the_session_survives_running_out_of_attempts(model, workspace):
    model.add({"status": 500}, {"status": 500}, reply("back"))
    host = RecordingHost()
    session = make_session(workspace, model, host, max_retries=1)
    result = await session.run_turn("first")
    assert result.status == "error" and result.answer.startswith("model request failed after 2 attempts: HTTP 500")
    assert host.texts("error") == [result.answer]
    result = await session.run_turn("second")
    await session.client.aclose()
    assert result.status == "done" and result.answer == "back"
    assert model.violations == []


# ---------------------------------------------------------------- the key


async def test_the_key_goes_only_into_the_authorization_header(workspace, tmp_path):
    echoing = {"status": 500, "body": f"upstream refused Authorization: Bearer {KEY} (bad key {KEY})"}
    with ScriptedModel(require_key=KEY) as model:
        (workspace / "a.py").write_text("print(1)\n")
        model.add(tool_call("bash", {"command": "echo $AGENT_API_KEY; cat a.py"}), echoing, echoing, reply("done"))
        host = RecordingHost()
        settings = settings_for(model, api_key=KEY, max_retries=1, auto_approve=True)
        session = open_session(workspace, host, settings)
        first = await session.run_turn("do it")
        second = await session.run_turn("and now")
        await session.client.aclose()
        assert first.status == "error" and second.status == "done"
        assert "HTTP 500" in first.answer and "[redacted]" in first.answer
        assert model.violations == []
        assert all(h.get("authorization") == f"Bearer {KEY}" for h in model.headers)
        assert all(KEY not in v for h in model.headers for k, v in h.items() if k != "authorization")
        assert KEY not in json.dumps(model.requests)
        assert KEY not in first.answer + second.answer
        assert KEY not in host.dump()
        assert KEY not in repr(settings) and KEY not in json.dumps(settings.public())
        files = list((tmp_path / "state" / "agent-lsp").glob("*.jsonl"))
        assert files, "the transcript must be written"
        for f in files:
            assert KEY not in f.read_text()


async def test_no_key_no_authorization_header(model):
    model.add(reply("hi"))
    await complete(model, api_key="")
    assert "authorization" not in model.headers[0]


def test_config_from_the_environment():
    from agent_lsp.agent.settings import DEFAULT_BASE_URL, DEFAULT_MODEL, Settings

    s = Settings.from_env({})
    assert (s.base_url, s.api_key, s.model) == (DEFAULT_BASE_URL, "", DEFAULT_MODEL)
    assert DEFAULT_BASE_URL == "https://api.openai.com/v1" and DEFAULT_MODEL == "gpt-4o-mini"
    s = Settings.from_env({"OPENAI_API_KEY": "sk-openai"})
    assert s.api_key == "sk-openai"
    s = Settings.from_env({"AGENT_API_KEY": "sk-agent", "OPENAI_API_KEY": "sk-openai",
                           "AGENT_BASE_URL": "http://localhost:11434/v1", "AGENT_MODEL": "qwen2.5-coder"})
    assert (s.base_url, s.api_key, s.model) == ("http://localhost:11434/v1", "sk-agent", "qwen2.5-coder")
    assert "sk-agent" not in repr(s)
