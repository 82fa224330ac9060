"""Tests of the scripted model server itself, driven with plain httpx."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from email.utils import formatdate
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from tests.scripted_model import (
    EXHAUSTED_MESSAGE,
    ScriptedModel,
    call,
    reply,
    tool_call,
    tool_calls,
    validate,
)

REPO = Path(__file__).resolve().parent.parent
USER = [{"role": "user", "content": "hi"}]


def body(messages: list | None = None, *, stream: bool = False, **extra: object) -> dict:
    """A minimal valid chat request."""
    out: dict = {"model": "m", "messages": messages or USER, **extra}
    if stream:
        out["stream"] = True
    return out


def chat(model: ScriptedModel, payload: dict, **kw: object) -> httpx.Response:
    return httpx.post(f"{model.base_url}/chat/completions", json=payload, timeout=5, **kw)


def events(model: ScriptedModel, payload: dict) -> list[dict | str]:
    """POST a streaming request; return the SSE data payloads (``"[DONE]"`` kept as a string)."""
    out: list[dict | str] = []
    with httpx.stream("POST", f"{model.base_url}/chat/completions", json=payload, timeout=5) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        _data_lines(r.iter_lines(), out)
    return out


def _data_lines(lines: Iterator[str], sink: list) -> None:
    """Collect ``data:`` payloads into ``sink`` as they arrive, so they survive a stream error."""
    for line in lines:
        if line.startswith("data: "):
            data = line[len("data: "):]
            sink.append(data if data == "[DONE]" else json.loads(data))


def reassemble(chunks: list[dict | str]) -> dict:
    """Rebuild the message the way a client accumulates stream deltas."""
    content, calls, finish = "", {}, None
    for chunk in chunks:
        if not isinstance(chunk, dict) or not chunk.get("choices"):
            continue
        choice = chunk["choices"][0]
        delta = choice["delta"]
        content += delta.get("content") or ""
        for frag in delta.get("tool_calls") or []:
            entry = calls.setdefault(frag["index"], {"id": None, "name": None, "arguments": ""})
            entry["id"] = frag.get("id") or entry["id"]
            function = frag.get("function") or {}
            entry["name"] = function.get("name") or entry["name"]
            entry["arguments"] += function.get("arguments") or ""
        finish = choice["finish_reason"] or finish
    return {"content": content, "calls": [calls[i] for i in sorted(calls)], "finish": finish}


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as m:
        yield m


# -- streaming ---------------------------------------------------------------


def test_streaming_text_is_split_and_reassembles(model: ScriptedModel) -> None:
    text = "Hello there, this is a longer answer."
    model.add(reply(text))
    chunks = events(model, body(stream=True, stream_options={"include_usage": True}))

    assert chunks[-1] == "[DONE]"
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert all(c["object"] == "chat.completion.chunk" for c in chunks[:-1])
    pieces = [c["choices"][0]["delta"]["content"] for c in chunks[1:-3]]
    assert len(pieces) > 3 and all(3 <= len(p) <= 8 for p in pieces[:-1])
    assert reassemble(chunks) == {"content": text, "calls": [], "finish": "stop"}
    usage_chunk = chunks[-2]
    assert usage_chunk["choices"] == [] and usage_chunk["usage"]["prompt_tokens"] > 0
    assert model.requests[0]["stream"] is True and model.violations == []


def test_streaming_without_include_usage_has_no_usage_chunk(model: ScriptedModel) -> None:
    model.add("short")  # a bare string is shorthand for {"content": ...}
    chunks = events(model, body(stream=True))
    assert chunks[-1] == "[DONE]"
    assert all("usage" not in c for c in chunks[:-1])
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"


def test_streaming_tool_calls_reassemble(model: ScriptedModel) -> None:
    model.add(tool_calls(call("read_file", {"path": "a.py"}),
                         call("grep", {"pattern": "def main", "path": "src"}, id="call_fixed"),
                         content="Let me look."))
    chunks = events(model, body(stream=True))
    out = reassemble(chunks)

    assert out["content"] == "Let me look." and out["finish"] == "tool_calls"
    assert [c["name"] for c in out["calls"]] == ["read_file", "grep"]
    assert json.loads(out["calls"][0]["arguments"]) == {"path": "a.py"}
    assert json.loads(out["calls"][1]["arguments"]) == {"pattern": "def main", "path": "src"}
    assert re.fullmatch(r"call_[A-Za-z0-9]{24}", out["calls"][0]["id"])
    assert out["calls"][1]["id"] == "call_fixed"
    heads = [f for c in chunks[:-1] for f in c["choices"][0]["delta"].get("tool_calls", []) if "id" in f]
    assert all(h["type"] == "function" and h["function"]["arguments"] == "" for h in heads)
    argument_fragments = [f for c in chunks[:-1] for f in c["choices"][0]["delta"].get("tool_calls", [])
                          if "id" not in f]
    assert len(argument_fragments) > 2 and all("name" not in f["function"] for f in argument_fragments)


def test_raw_string_arguments_are_sent_verbatim(model: ScriptedModel) -> None:
    model.add(tool_call("edit", '{"path": "a.py", "text": '))
    assert reassemble(events(model, body(stream=True)))["calls"][0]["arguments"] == '{"path": "a.py", "text": '


def test_llamacpp_style_ids(model: ScriptedModel) -> None:
    model.add(tool_call("ls", {}, id_style="llamacpp"), tool_call("ls", {}, id_style="llamacpp"))
    first = reassemble(events(model, body(stream=True)))["calls"][0]["id"]
    second = chat(model, body()).json()["choices"][0]["message"]["tool_calls"][0]["id"]
    for call_id in (first, second):
        assert re.fullmatch(r"[A-Za-z0-9]{32}", call_id) and not call_id.startswith("call_")
    assert first != second


def test_args_as_dict_streaming_and_not(model: ScriptedModel) -> None:
    model.add(tool_call("read_file", {"path": "a.py"}, args_as_dict=True),
              tool_call("read_file", {"path": "b.py"}, args_as_dict=True))
    chunks = events(model, body(stream=True))
    heads = [f for c in chunks[:-1] for f in c["choices"][0]["delta"].get("tool_calls", [])]
    assert heads == [{"index": 0, "id": heads[0]["id"], "type": "function",
                      "function": {"name": "read_file", "arguments": {"path": "a.py"}}}]
    message = chat(model, body()).json()["choices"][0]["message"]
    assert message["tool_calls"][0]["function"]["arguments"] == {"path": "b.py"}


def test_finish_reason_length_cuts_arguments_in_half(model: ScriptedModel) -> None:
    args = {"path": "a.py", "content": "x" * 40}
    model.add(tool_call("write_file", args, finish_reason="length"))
    out = reassemble(events(model, body(stream=True)))
    full = json.dumps(args)
    assert out["finish"] == "length"
    assert out["calls"][0]["arguments"] == full[: len(full) // 2]


def test_reasoning_is_streamed_as_reasoning_content(model: ScriptedModel) -> None:
    model.add(reply("answer", reasoning="thinking hard"))
    chunks = events(model, body(stream=True))
    thought = "".join(c["choices"][0]["delta"].get("reasoning_content", "") for c in chunks[:-1])
    assert thought == "thinking hard" and reassemble(chunks)["content"] == "answer"


# -- non-streaming -------------------------------------------------------------


def test_non_streaming_text_and_tool_call(model: ScriptedModel) -> None:
    model.add(reply("plain answer"), tool_call("read_file", {"path": "a.py"}, id="c1"))
    first = chat(model, body()).json()
    assert first["object"] == "chat.completion"
    assert first["choices"][0]["message"] == {"role": "assistant", "content": "plain answer"}
    assert first["choices"][0]["finish_reason"] == "stop"
    assert first["usage"]["prompt_tokens"] == len(json.dumps(USER)) // 4
    assert first["usage"]["total_tokens"] == first["usage"]["prompt_tokens"] + first["usage"]["completion_tokens"]

    second = chat(model, body()).json()["choices"][0]
    assert second["finish_reason"] == "tool_calls"
    assert second["message"]["content"] is None
    assert second["message"]["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]


def test_callable_reply_sees_the_request(model: ScriptedModel) -> None:
    model.add(lambda req: reply(f"you said {req['messages'][-1]['content']}"))
    assert chat(model, body()).json()["choices"][0]["message"]["content"] == "you said hi"


def test_failing_callable_reply_is_a_500_and_a_violation(model: ScriptedModel) -> None:
    model.add(lambda req: 1 / 0)
    assert chat(model, body()).status_code == 500
    assert "ZeroDivisionError" in model.violations[0]


def test_exhausted_script_answers_500(model: ScriptedModel) -> None:
    r = chat(model, body())
    assert r.status_code == 500 and r.json()["error"]["message"] == EXHAUSTED_MESSAGE
    assert model.violations == [EXHAUSTED_MESSAGE]


def test_requests_and_headers_are_recorded_including_faults(model: ScriptedModel) -> None:
    model.add({"status": 500, "body": "oops"}, reply("ok"))
    chat(model, body(), headers={"X-Trace": "1"})
    chat(model, body(temperature=0.5))
    assert [r.get("temperature") for r in model.requests] == [None, 0.5]
    assert model.headers[0]["x-trace"] == "1" and "content-type" in model.headers[1]
    assert model.remaining == 0


def test_models_endpoint(model: ScriptedModel) -> None:
    assert httpx.get(f"{model.base_url}/models").json()["data"][0]["id"]


# -- faults --------------------------------------------------------------------


@pytest.mark.parametrize("retry_after", ["1", formatdate(time.time() + 30, usegmt=True)])
def test_rate_limit_with_retry_after(model: ScriptedModel, retry_after: str) -> None:
    model.add({"status": 429, "retry_after": retry_after}, reply("after"))
    r = chat(model, body())
    assert r.status_code == 429 and r.headers["retry-after"] == retry_after
    assert r.json()["error"]["message"]
    assert chat(model, body()).json()["choices"][0]["message"]["content"] == "after"


def test_server_error_with_raw_body(model: ScriptedModel) -> None:
    model.add({"status": 500, "body": "upstream exploded"})
    r = chat(model, body())
    assert r.status_code == 500 and r.text == "upstream exploded"


def test_openai_shaped_error(model: ScriptedModel) -> None:
    error = {"message": "context too long", "type": "exceed_context_size_error", "code": 400}
    model.add({"status": 400, "error": error})
    r = chat(model, body(stream=True))
    assert r.status_code == 400 and r.json() == {"error": error}


def test_drop_closes_without_response(model: ScriptedModel) -> None:
    model.add({"drop": True}, reply("fine"))
    with pytest.raises(httpx.RemoteProtocolError):
        chat(model, body())
    assert chat(model, body()).status_code == 200
    assert len(model.requests) == 2


def test_truncated_stream_has_no_finish_and_no_done(model: ScriptedModel) -> None:
    model.add({"truncate": True, "content": "partial answer"})
    received: list = []
    with pytest.raises(httpx.RemoteProtocolError):
        with httpx.stream("POST", f"{model.base_url}/chat/completions",
                          json=body(stream=True), timeout=5) as r:
            _data_lines(r.iter_lines(), received)
    assert "[DONE]" not in received
    out = reassemble(received)
    assert out["content"] == "partial answer" and out["finish"] is None


def test_truncated_non_streaming_body(model: ScriptedModel) -> None:
    model.add({"truncate": True, "content": "partial"})
    with pytest.raises(httpx.RemoteProtocolError):
        chat(model, body())


def test_stream_error_inside_a_200_stream(model: ScriptedModel) -> None:
    model.add({"stream_error": {"message": "boom", "code": 500}}, {"stream_error": {"message": "boom", "code": 503}})
    assert events(model, body(stream=True)) == [{"error": {"message": "boom", "code": 500}}]
    r = chat(model, body())  # without streaming it becomes an ordinary HTTP error
    assert r.status_code == 503 and r.json()["error"]["message"] == "boom"


def test_delay_before_answer(model: ScriptedModel) -> None:
    model.add(reply("slow", delay=0.3))
    started = time.monotonic()
    assert chat(model, body()).status_code == 200
    assert time.monotonic() - started >= 0.3


def test_delay_ends_early_when_stopped() -> None:
    model = ScriptedModel([reply("never", delay=30)]).start()
    errors: list[Exception] = []

    def request() -> None:
        try:
            chat(model, body())
        except httpx.HTTPError as exc:
            errors.append(exc)

    worker = threading.Thread(target=request)
    worker.start()
    _wait_until(lambda: model.requests)
    started = time.monotonic()
    model.stop()
    worker.join(timeout=5)
    assert time.monotonic() - started < 2 and not worker.is_alive()
    assert len(errors) == 1


def test_stall_mid_stream_and_client_cancel_is_seen(model: ScriptedModel) -> None:
    model.add({"stall": 10, "content": "first words and then more"})
    started = time.monotonic()
    with httpx.stream("POST", f"{model.base_url}/chat/completions", json=body(stream=True), timeout=5) as r:
        lines = r.iter_lines()
        received: list = []
        while not any(isinstance(c, dict) and c["choices"][0]["delta"].get("content") for c in received):
            line = next(lines)
            if line.startswith("data: "):
                received.append(json.loads(line[6:]))
    # leaving the block closes the connection mid-stream, like a user cancel
    assert reassemble(received)["content"] == "fir"
    assert model.wait_for_disconnect(timeout=3)
    assert model.disconnects == [0] and time.monotonic() - started < 5


def test_stall_then_completes(model: ScriptedModel) -> None:
    model.add({"stall": 0.2, "content": "eventually"})
    chunks = events(model, body(stream=True))
    assert reassemble(chunks) == {"content": "eventually", "calls": [], "finish": "stop"}


def test_stop_with_idle_keepalive_connection_is_fast() -> None:
    model = ScriptedModel([reply("a")]).start()
    with httpx.Client() as client:
        assert client.post(f"{model.base_url}/chat/completions", json=body()).status_code == 200
        started = time.monotonic()
        model.stop()
        assert time.monotonic() - started < 1


# -- validation ------------------------------------------------------------------


def _assistant_call(call_id: str = "c1", arguments: object = "{}") -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": "ls", "arguments": arguments}}]}


def _tool(call_id: str = "c1") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": "result"}


def test_unpaired_tool_call_is_400_and_does_not_consume_script(model: ScriptedModel) -> None:
    model.add(reply("the answer"))
    r = chat(model, body(USER + [_assistant_call("c1"), {"role": "user", "content": "next"}]))
    assert r.status_code == 400
    assert r.json()["error"]["type"] == "invalid_request_error"
    assert "c1" in r.json()["error"]["message"]
    assert len(model.violations) == 1 and "did not have response messages: c1" in model.violations[0]
    assert model.remaining == 1

    ok = chat(model, body(USER + [_assistant_call("c1"), _tool("c1")]))
    assert ok.json()["choices"][0]["message"]["content"] == "the answer"
    assert len(model.requests) == 2


@pytest.mark.parametrize("messages, fragment", [
    ([], "non-empty"),
    (USER + [_tool("c9")], "must be a response to a preceeding message"),
    (USER + [_assistant_call("c1"), _tool("c2")], "does not match"),
    (USER + [_assistant_call("c1"), _tool("c1"), _tool("c1")], "twice"),
    (USER + [_assistant_call("c1", {"a": 1}), _tool("c1")], "expected a string, but got an object"),
    (USER + [{"role": "assistant", "content": None, "tool_calls": []}], "empty array"),
    (USER + [{"role": "assistant", "content": None}], "expected a string, got null"),
    ([{"role": "wizard", "content": "x"}], "role"),
])
def test_invalid_histories(messages: list, fragment: str) -> None:
    problems = validate({"model": "m", "messages": messages})
    assert any(fragment in p for p in problems), problems


@pytest.mark.parametrize("extra, fragment", [
    ({"tools": []}, "empty array"),
    ({"tools": [{"type": "function", "function": {"name": "bad name!"}}]}, "pattern"),
    ({"tool_choice": "auto"}, "only allowed when 'tools'"),
    ({"stream_options": {"include_usage": True}}, "only allowed when 'stream'"),
])
def test_invalid_request_options(extra: dict, fragment: str) -> None:
    problems = validate(body(**extra))
    assert any(fragment in p for p in problems), problems


def test_missing_model_is_400(model: ScriptedModel) -> None:
    r = chat(model, {"messages": USER})
    assert r.status_code == 400 and "model" in model.violations[0]


def test_valid_history_passes() -> None:
    tools = [{"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}}]
    messages = USER + [_assistant_call("a"), _tool("a"), {"role": "assistant", "content": "done"}]
    assert validate(body(messages, tools=tools, tool_choice="auto")) == []


def test_dict_arguments_accepted_when_configured() -> None:
    messages = USER + [_assistant_call("c1", {"a": 1}), _tool("c1")]
    with ScriptedModel([reply("ok")], accept_dict_arguments=True) as model:
        assert chat(model, body(messages)).status_code == 200
        assert model.violations == []


def test_invalid_json_body_is_400(model: ScriptedModel) -> None:
    r = httpx.post(f"{model.base_url}/chat/completions", content=b"{nope", timeout=5)
    assert r.status_code == 400 and model.violations


def test_require_key() -> None:
    with ScriptedModel([reply("ok")], require_key="sk-test") as model:
        assert chat(model, body()).status_code == 401
        assert chat(model, body(), headers={"Authorization": "Bearer wrong"}).status_code == 401
        r = chat(model, body(), headers={"Authorization": "Bearer sk-test"})
        assert r.status_code == 200 and model.headers[-1]["authorization"] == "Bearer sk-test"
        assert len(model.violations) == 2


# -- command line ------------------------------------------------------------------


def test_cli_serves_a_script_file(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"content": "from the CLI"}]))
    log = tmp_path / "log.jsonl"
    command = [sys.executable, "-m", "tests.scripted_model", "--port", "0",
               "--script", str(script), "--log", str(log)]
    with subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True) as proc:
        try:
            line = proc.stdout.readline().strip()  # type: ignore[union-attr]
            match = re.fullmatch(r"READY (http://127\.0\.0\.1:(\d+)/v1)", line)
            assert match, line
            r = httpx.post(f"{match.group(1)}/chat/completions", json=body(), timeout=5)
            assert r.json()["choices"][0]["message"]["content"] == "from the CLI"
            assert json.loads(log.read_text().splitlines()[0])["request"]["messages"] == USER
        finally:
            proc.terminate()
        assert proc.wait(timeout=5) == 0


def _wait_until(predicate: object, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.01)
