"""A scripted, OpenAI-compatible ``POST /chat/completions`` server for tests.

Every test of the agent talks to this server instead of a real model, so it
imitates the parts of the real API that an agent can get wrong: SSE streaming
with fragmented tool calls, the request validation the real API does (tool
call / tool result pairing, argument types, empty ``tools``), and the faults a
real endpoint produces (rate limits, errors, dropped and truncated streams,
slow or stalled answers).

It uses only the standard library (``ThreadingHTTPServer`` in a daemon
thread), so sync tests, async tests and subprocess-based tests can all use it;
``python -m tests.scripted_model --script FILE.json`` runs it stand-alone.

A *script* is a list of replies consumed one per accepted request, in order.
A reply is a ``dict`` (see the README-style list below), a ``str`` (shorthand
for ``{"content": str}``), or a callable ``fn(body) -> reply`` deciding from
the request.

Reply keys:

* ``content``: text answer; ``reasoning``: streamed as ``reasoning_content``
  like llama.cpp / DeepSeek thinking models.
* ``tool_calls``: ``[{"name", "arguments", "id"?}]``; ``arguments`` is a dict
  (JSON-encoded) or a raw string (sent verbatim, may be malformed).
* ``id_style``: ``"openai"`` (``call_`` + 24 chars) or ``"llamacpp"``
  (32 alphanumerics) for generated call ids.
* ``args_as_dict``: send arguments as a JSON object, as some local servers do.
* ``no_usage``: send no token counts (the usage chunk and field are left out).
* ``finish_reason``: e.g. ``"length"``, which also cuts each tool call's
  arguments to their first half.
* Faults: ``status`` (+ ``retry_after``, ``body`` or ``error``), ``drop``,
  ``truncate``, ``no_finish`` (clean end, no finish_reason), ``stream_error``, ``delay``, ``stall``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import select
import signal
import socket
import string
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterable, Union

Reply = Union[dict, str, Callable[[dict], Union[dict, str]]]

EXHAUSTED_MESSAGE = "scripted model: script exhausted"
MODEL_ID = "scripted-model"
_ROLES = {"system", "developer", "user", "assistant", "tool"}
_FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_ALNUM = string.ascii_letters + string.digits
# Piece sizes used to split streamed text; fixed so runs are reproducible while
# still exercising reassembly across irregular boundaries.
_PIECE_SIZES = (3, 5, 8, 4, 6, 7)
_POLL_SECONDS = 0.05


# --------------------------------------------------------------------------
# Reply constructors
# --------------------------------------------------------------------------


def reply(content: str, **extra: Any) -> dict:
    """A plain text answer, e.g. ``reply("done")`` or ``reply("x", delay=1)``."""
    return {"content": content, **extra}


def call(name: str, arguments: dict | str | None = None, *, id: str | None = None) -> dict:
    """One tool call entry for :func:`tool_calls`."""
    entry: dict = {"name": name, "arguments": {} if arguments is None else arguments}
    if id is not None:
        entry["id"] = id
    return entry


def tool_call(
    name: str, arguments: dict | str | None = None, *, id: str | None = None, **extra: Any
) -> dict:
    """A reply making a single tool call, e.g. ``tool_call("read_file", {"path": "a.py"})``."""
    return {"tool_calls": [call(name, arguments, id=id)], **extra}


def tool_calls(*calls: dict, **extra: Any) -> dict:
    """A reply making several tool calls built with :func:`call`."""
    return {"tool_calls": list(calls), **extra}


# --------------------------------------------------------------------------
# Request validation (what the real API answers with HTTP 400)
# --------------------------------------------------------------------------


def validate(body: Any, *, accept_dict_arguments: bool = False) -> list[str]:
    """Return the problems the real API would reject ``body`` for (empty if fine).

    Messages follow OpenAI's wording so failures read like the real thing.
    """
    if not isinstance(body, dict):
        return ["request body must be a JSON object"]
    problems: list[str] = []
    model = body.get("model")
    if not isinstance(model, str) or not model:
        problems.append("you must provide a model parameter")
    problems += _validate_messages(body.get("messages"), accept_dict_arguments)
    problems += _validate_tools(body)
    problems += _validate_stream(body)
    return problems


def _validate_messages(messages: Any, accept_dict_arguments: bool) -> list[str]:
    if not isinstance(messages, list) or not messages:
        return ["'messages' must be a non-empty array"]
    problems: list[str] = []
    for i, message in enumerate(messages):
        problems += _validate_message(i, message, accept_dict_arguments)
    if not problems:
        problems += _validate_pairing(messages)
    return problems


def _validate_message(i: int, message: Any, accept_dict_arguments: bool) -> list[str]:
    where = f"messages[{i}]"
    if not isinstance(message, dict):
        return [f"Invalid type for '{where}': expected an object"]
    role = message.get("role")
    if role not in _ROLES:
        return [f"Invalid value for '{where}.role': {role!r}"]
    content = message.get("content")
    if role == "assistant":
        return _validate_assistant(where, message, accept_dict_arguments)
    if not isinstance(content, (str, list)):
        return [f"Invalid type for '{where}.content': expected a string or array, got {_kind(content)}"]
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        return [f"Missing required parameter: '{where}.tool_call_id'."]
    return []


def _validate_assistant(where: str, message: dict, accept_dict_arguments: bool) -> list[str]:
    calls = message.get("tool_calls")
    content = message.get("content")
    if calls is None:
        if not isinstance(content, (str, list)):
            return [f"Invalid value for '{where}.content': expected a string, got {_kind(content)}"]
        return []
    if content is not None and not isinstance(content, (str, list)):
        return [f"Invalid type for '{where}.content': got {_kind(content)}"]
    if not isinstance(calls, list) or not calls:
        return [
            f"Invalid '{where}.tool_calls': empty array. Expected an array with "
            "minimum length 1, but got an empty array instead."
        ]
    problems: list[str] = []
    seen: set[str] = set()
    for j, tc in enumerate(calls):
        problems += _validate_call(f"{where}.tool_calls[{j}]", tc, accept_dict_arguments)
        call_id = tc.get("id") if isinstance(tc, dict) else None
        if isinstance(call_id, str):
            if call_id in seen:
                problems.append(f"Duplicate tool call id {call_id!r} in '{where}.tool_calls'")
            seen.add(call_id)
    return problems


def _validate_call(where: str, tc: Any, accept_dict_arguments: bool) -> list[str]:
    if not isinstance(tc, dict):
        return [f"Invalid type for '{where}': expected an object"]
    problems: list[str] = []
    if not isinstance(tc.get("id"), str) or not tc["id"]:
        problems.append(f"Missing required parameter: '{where}.id'.")
    if tc.get("type") != "function":
        problems.append(f"Invalid value for '{where}.type': expected 'function'")
    function = tc.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return problems + [f"Missing required parameter: '{where}.function.name'."]
    arguments = function.get("arguments")
    allowed = (str, dict) if accept_dict_arguments else (str,)
    if not isinstance(arguments, allowed):
        problems.append(
            f"Invalid type for '{where}.function.arguments': expected a string, "
            f"but got {_kind(arguments)} instead."
        )
    return problems


def _validate_pairing(messages: list[dict]) -> list[str]:
    """Each assistant ``tool_calls`` needs exactly one tool result per id, right after it."""
    problems: list[str] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        if message["role"] == "tool":
            problems.append(
                f"Invalid parameter: messages[{i}] with role 'tool' must be a response "
                "to a preceeding message with 'tool_calls'."
            )
        elif message["role"] == "assistant" and message.get("tool_calls"):
            ids = [tc["id"] for tc in message["tool_calls"]]
            answered, i = _collect_tool_results(messages, i + 1, ids, problems)
            missing = [x for x in ids if x not in answered]
            if missing:
                problems.append(
                    "An assistant message with 'tool_calls' must be followed by tool "
                    "messages responding to each 'tool_call_id'. The following "
                    f"tool_call_ids did not have response messages: {', '.join(missing)}"
                )
            continue
        i += 1
    return problems


def _collect_tool_results(
    messages: list[dict], start: int, ids: list[str], problems: list[str]
) -> tuple[set[str], int]:
    """Consume the run of tool messages at ``start``; return answered ids and the next index."""
    answered: set[str] = set()
    i = start
    while i < len(messages) and messages[i]["role"] == "tool":
        call_id = messages[i]["tool_call_id"]
        if call_id not in ids:
            problems.append(
                f"Invalid parameter: messages[{i}].tool_call_id {call_id!r} does not match "
                "any tool call of the preceding assistant message."
            )
        elif call_id in answered:
            problems.append(f"Invalid parameter: messages[{i}] answers tool call {call_id!r} twice.")
        answered.add(call_id)
        i += 1
    return answered, i


def _validate_tools(body: dict) -> list[str]:
    if "tools" not in body:
        if body.get("tool_choice") is not None:
            return ["Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."]
        return []
    tools = body["tools"]
    if not isinstance(tools, list) or not tools:
        return [
            "Invalid 'tools': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead."
        ]
    problems: list[str] = []
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or tool.get("type") != "function" or not isinstance(function, dict):
            problems.append(f"Invalid value for 'tools[{i}]': expected a function tool")
            continue
        name = function.get("name")
        if not isinstance(name, str) or not _FUNCTION_NAME.match(name):
            problems.append(f"Invalid 'tools[{i}].function.name': string does not match pattern.")
        if "parameters" in function and not isinstance(function["parameters"], dict):
            problems.append(f"Invalid type for 'tools[{i}].function.parameters': expected an object")
    return problems


def _validate_stream(body: dict) -> list[str]:
    if "stream" in body and not isinstance(body["stream"], bool):
        return ["Invalid type for 'stream': expected a boolean"]
    if body.get("stream_options") is not None and body.get("stream") is not True:
        return ["The 'stream_options' parameter is only allowed when 'stream' is enabled."]
    return []


def _kind(value: Any) -> str:
    """Name a JSON value's type the way OpenAI's error messages do."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, (int, float)):
        return "a number"
    return "a string"


# --------------------------------------------------------------------------
# Building completions from replies
# --------------------------------------------------------------------------


@dataclass
class _Completion:
    """A reply resolved into what the model "says": ids generated, args encoded."""

    content: str | None
    reasoning: str | None
    calls: list[dict]  # {"id", "name", "arguments": str | dict}
    finish_reason: str
    no_usage: bool = False  # like a local server that never reports token counts
    response_id: str = field(default_factory=lambda: "chatcmpl-" + _random_chars(29))
    created: int = field(default_factory=lambda: int(time.time()))


def _random_chars(n: int) -> str:
    return "".join(random.choice(_ALNUM) for _ in range(n))


def _call_id(style: str) -> str:
    if style == "llamacpp":
        return _random_chars(32)
    if style == "openai":
        return "call_" + _random_chars(24)
    raise ValueError(f"unknown id_style {style!r}")


def _build_completion(spec: dict) -> _Completion:
    calls = [_build_call(tc, spec) for tc in spec.get("tool_calls") or []]
    finish = spec.get("finish_reason") or ("tool_calls" if calls else "stop")
    return _Completion(spec.get("content"), spec.get("reasoning"), calls, finish, bool(spec.get("no_usage")))


def _build_call(tc: dict, spec: dict) -> dict:
    arguments = tc.get("arguments", {})
    if spec.get("args_as_dict") and isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass  # malformed on purpose: nothing to turn into an object
    elif not spec.get("args_as_dict") and not isinstance(arguments, str):
        arguments = json.dumps(arguments)
    if spec.get("finish_reason") == "length":
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        arguments = text[: len(text) // 2]  # a cut-off object can only be a string
    call_id = tc.get("id") or _call_id(spec.get("id_style", "openai"))
    return {"id": call_id, "name": tc["name"], "arguments": arguments}


def _pieces(text: str | None) -> list[str]:
    """Split text into small irregular pieces, as a real token stream arrives."""
    out: list[str] = []
    pos = 0
    sizes = iter(_PIECE_SIZES * (len(text or "") // 3 + 1))
    while text and pos < len(text):
        size = next(sizes)
        out.append(text[pos : pos + size])
        pos += size
    return out


def _deltas(c: _Completion) -> list[dict]:
    """The ``choices[0].delta`` objects of a streamed answer, before the finish chunk."""
    out: list[dict] = [{"role": "assistant", "content": ""}]
    out += [{"reasoning_content": p} for p in _pieces(c.reasoning)]
    out += [{"content": p} for p in _pieces(c.content)]
    for index, tc in enumerate(c.calls):
        args = tc["arguments"]
        head_args = "" if isinstance(args, str) else args
        head = {"index": index, "id": tc["id"], "type": "function",
                "function": {"name": tc["name"], "arguments": head_args}}
        out.append({"tool_calls": [head]})
        if isinstance(args, str):
            out += [{"tool_calls": [{"index": index, "function": {"arguments": p}}]} for p in _pieces(args)]
    return out


def _usage(body: dict, c: _Completion) -> dict:
    """Rough token counts: about four characters per token."""
    prompt = len(json.dumps(body.get("messages", []))) // 4
    said = (c.content or "") + (c.reasoning or "") + "".join(
        tc["arguments"] if isinstance(tc["arguments"], str) else json.dumps(tc["arguments"])
        for tc in c.calls
    )
    completion = max(1, len(said) // 4)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _chunk(c: _Completion, model: str, choices: list[dict], include_usage: bool) -> dict:
    chunk = {"id": c.response_id, "object": "chat.completion.chunk", "created": c.created,
             "model": model, "system_fingerprint": None, "choices": choices}
    if include_usage:
        chunk["usage"] = None
    return chunk


def _choice(delta: dict, finish: str | None = None) -> dict:
    return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}


def _stream_chunks(body: dict, c: _Completion) -> tuple[list[dict], list[dict]]:
    """Return (delta chunks, closing chunks): finish chunk and the optional usage chunk."""
    model = body.get("model") or MODEL_ID
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    deltas = [_chunk(c, model, [_choice(d)], include_usage) for d in _deltas(c)]
    closing = [_chunk(c, model, [_choice({}, c.finish_reason)], include_usage)]
    if include_usage and not c.no_usage:
        closing.append({**_chunk(c, model, [], False), "usage": _usage(body, c)})
    return deltas, closing


def _completion_json(body: dict, c: _Completion) -> dict:
    message: dict = {"role": "assistant", "content": c.content if c.content or not c.calls else None}
    if c.reasoning:
        message["reasoning_content"] = c.reasoning
    if c.calls:
        message["tool_calls"] = [
            {"id": tc["id"], "type": "function", "function": {"name": tc["name"], "arguments": tc["arguments"]}}
            for tc in c.calls
        ]
    return {"id": c.response_id, "object": "chat.completion", "created": c.created,
            "model": body.get("model") or MODEL_ID, "system_fingerprint": None,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": c.finish_reason}],
            "usage": None if c.no_usage else _usage(body, c)}


def _error(message: str, type_: str = "invalid_request_error", code: Any = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


# --------------------------------------------------------------------------
# HTTP layer
# --------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    """Tracks open connections so ``stop()`` can cut idle keep-alives and stalled streams."""

    daemon_threads = True
    model: "ScriptedModel"

    def __init__(self, address: tuple[str, int], model: "ScriptedModel") -> None:
        self.model = model
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Connection resets are expected (drops, cancellations, stop()); stay quiet about them."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)

    def close_connections(self) -> None:
        with self.connections_lock:
            connections = list(self.connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    """Answers one connection; each POST consumes at most one script entry."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small SSE writes must not wait ~40 ms on a kept-alive connection
    server: _Server
    index: int = -1  # position of the current request in ``model.requests``

    # -- connection bookkeeping --------------------------------------------

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request stderr log; tests inspect ``requests`` instead."""

    @property
    def model(self) -> "ScriptedModel":
        return self.server.model

    # -- routing --------------------------------------------------------------

    def do_GET(self) -> None:
        """``GET /v1/models``: some clients probe it before chatting (``models=None``: no such route)."""
        if self.path.rstrip("/").endswith("/models") and self.model.models is not None:
            self.model.model_lists += 1
            self._send_json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "tests"} for m in self.model.models]})
        else:
            self._send_json(404, _error(f"no route for GET {self.path}", "not_found_error"))

    def do_POST(self) -> None:
        if not self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
            self._discard_body()
            self._send_json(404, _error(f"no route for POST {self.path}", "not_found_error"))
            return
        body = self._read_json()
        if body is None:
            return
        self.index = self.model._record(body, {k.lower(): v for k, v in self.headers.items()})
        if not self._authorized():
            return
        problems = validate(body, accept_dict_arguments=self.model.accept_dict_arguments)
        if problems:
            self.model._violate(*problems)
            self._send_json(400, _error("; ".join(problems)))
            return
        try:
            spec = self.model._next_reply(body)
        except Exception as exc:  # a test's reply function failed: make it visible
            problem = f"scripted model: reply function raised {exc!r}"
            self.model._violate(problem)
            self._send_json(500, _error(problem, "server_error"))
            return
        if spec is None:
            self._send_json(500, _error(EXHAUSTED_MESSAGE, "server_error"))
            return
        try:
            self._answer(body, spec)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.model._note_disconnect(self.index)
            self.close_connection = True

    def _discard_body(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _read_json(self) -> dict | None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError as exc:
            problem = f"We could not parse the JSON body of your request: {exc}"
        else:
            if isinstance(body, dict):
                return body
            problem = "request body must be a JSON object"
        self.model._violate(problem)
        self._send_json(400, _error(problem))
        return None

    def _authorized(self) -> bool:
        key = self.model.require_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        problem = "Incorrect API key provided (missing or wrong 'Authorization: Bearer' header)"
        self.model._violate(problem)
        self._send_json(401, _error(problem, "invalid_request_error", "invalid_api_key"))
        return False

    # -- answering a reply ------------------------------------------------------

    def _answer(self, body: dict, spec: dict) -> None:
        if spec.get("delay") and not self._pause(float(spec["delay"])):
            self.close_connection = True
            return
        if spec.get("drop"):
            self.close_connection = True  # close without a single byte of response
            return
        if "status" in spec:
            self._send_fault(spec)
            return
        streaming = body.get("stream") is True
        if "stream_error" in spec:
            self._send_stream_error(spec["stream_error"], streaming)
            return
        completion = _build_completion(spec)
        if streaming:
            self._stream(body, spec, completion)
        else:
            self._respond(body, spec, completion)

    def _send_fault(self, spec: dict) -> None:
        status = int(spec["status"])
        headers = {"Retry-After": str(spec["retry_after"])} if "retry_after" in spec else {}
        if "body" in spec:
            raw = spec["body"]
            if isinstance(raw, str):
                self._send_bytes(status, raw.encode(), "text/plain; charset=utf-8", headers)
                return
            payload = raw
        elif "error" in spec:
            payload = {"error": spec["error"]}
        else:
            payload = _error(f"scripted model: HTTP {status}", "server_error", status)
        self._send_json(status, payload, headers)

    def _send_stream_error(self, error: dict, streaming: bool) -> None:
        """An error reported inside a 200 SSE stream, as proxies and llama.cpp do."""
        if not streaming:
            self._send_json(int(error.get("code") or 500), {"error": error})
            return
        self._start_stream()
        self._send_event({"error": error})
        self.wfile.write(b"0\r\n\r\n")

    def _respond(self, body: dict, spec: dict, completion: _Completion) -> None:
        if spec.get("stall") and not self._pause(float(spec["stall"])):
            self.close_connection = True
            return
        data = json.dumps(_completion_json(body, completion)).encode()
        if spec.get("truncate"):
            self._send_truncated(data)
            return
        self._send_bytes(200, data, "application/json")

    def _send_truncated(self, data: bytes) -> None:
        """Promise the full length, send half, hang up: a body cut off in transit."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.close_connection = True

    def _stream(self, body: dict, spec: dict, completion: _Completion) -> None:
        deltas, closing = _stream_chunks(body, completion)
        self._start_stream()
        stall_after = _stall_point(deltas) if spec.get("stall") else None
        for i, chunk in enumerate(deltas):
            self._send_event(chunk)
            if i == stall_after and not self._pause(float(spec["stall"])):
                self.close_connection = True
                return
        if spec.get("truncate"):
            self.close_connection = True  # no finish_reason, no [DONE], no last chunk
            return
        if spec.get("no_finish"):  # a well-formed stream that simply never says why it ended
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        for chunk in closing:
            self._send_event(chunk)
        self._write_chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    # -- low-level writing ------------------------------------------------------

    def _pause(self, seconds: float) -> bool:
        """Sleep in slices so ``stop()`` or a client hang-up ends it early.

        Returns True only if the full time elapsed; a hang-up is recorded in
        ``model.disconnects`` so cancellation tests can see it.
        """
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self.model._stopping.wait(min(left, _POLL_SECONDS)):
                return False
            if self._client_gone():
                self.model._note_disconnect(self.index)
                return False
        return True

    def _client_gone(self) -> bool:
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send_event(self, obj: dict) -> None:
        self._write_chunk(b"data: " + json.dumps(obj).encode() + b"\n\n")

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(obj).encode(), "application/json", headers)

    def _send_bytes(self, status: int, data: bytes, content_type: str,
                    headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _stall_point(deltas: list[dict]) -> int:
    """Stall after the first delta the user could see, so a cancel has partial output."""
    for i, chunk in enumerate(deltas):
        delta = chunk["choices"][0]["delta"]
        if delta.get("content") or delta.get("tool_calls") or delta.get("reasoning_content"):
            return i
    return 0


# --------------------------------------------------------------------------
# Public server object
# --------------------------------------------------------------------------


class ScriptedModel:
    """An OpenAI-compatible chat completions server answering from a script.

    Use as ``with ScriptedModel([...]) as model:`` or ``start()``/``stop()``;
    point the agent at ``model.base_url``, then inspect ``requests``,
    ``headers``, ``violations`` (validation/auth/exhaustion problems; assert it
    is empty to prove the agent spoke the protocol correctly) and
    ``disconnects`` (indices into ``requests`` whose client hung up mid-answer).
    """

    def __init__(
        self,
        script: list | None = None,
        *,
        require_key: str | None = None,
        accept_dict_arguments: bool = False,
        port: int = 0,
        log_path: str | Path | None = None,
        models: Iterable[str] | None = (MODEL_ID,),
    ) -> None:
        self.require_key = require_key
        self.models = list(models) if models is not None else None  # what GET /models lists
        self.model_lists = 0  # how many times GET /models was answered
        self.accept_dict_arguments = accept_dict_arguments
        self.port = port
        self.log_path = Path(log_path) if log_path else None
        self.base_url = ""
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.violations: list[str] = []
        self.disconnects: list[int] = []
        self._script: list[Reply] = list(script or [])
        self._cursor = 0
        self._lock = threading.Lock()
        self._disconnected = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------

    def start(self) -> "ScriptedModel":
        """Bind 127.0.0.1 (port 0 = any free port) and serve in a daemon thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(("127.0.0.1", self.port), self)
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": _POLL_SECONDS},
            name=f"scripted-model:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end pending delays/stalls and cut open connections."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        server.close_connections()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def __enter__(self) -> "ScriptedModel":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- script -------------------------------------------------------------

    def add(self, *replies: Reply) -> None:
        """Append replies to the script (also allowed while serving)."""
        with self._lock:
            self._script.extend(replies)

    @property
    def remaining(self) -> int:
        """How many script entries are not yet consumed."""
        with self._lock:
            return len(self._script) - self._cursor

    def wait_for_disconnect(self, timeout: float = 5.0) -> bool:
        """Block until some client has hung up mid-answer; for cancellation tests."""
        with self._disconnected:
            return self._disconnected.wait_for(lambda: bool(self.disconnects), timeout)

    # -- used by the handler --------------------------------------------------

    def _record(self, body: dict, headers: dict) -> int:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self._log({"request": body, "headers": headers})
            return len(self.requests) - 1

    def _violate(self, *problems: str) -> None:
        with self._lock:
            self.violations.extend(problems)
            for problem in problems:
                self._log({"violation": problem})

    def _note_disconnect(self, index: int) -> None:
        with self._disconnected:
            self.disconnects.append(index)
            self._disconnected.notify_all()

    def _next_reply(self, body: dict) -> dict | None:
        """Consume the next entry and resolve it to a dict; None when exhausted."""
        with self._lock:
            if self._cursor >= len(self._script):
                self.violations.append(EXHAUSTED_MESSAGE)
                self._log({"violation": EXHAUSTED_MESSAGE})
                return None
            entry = self._script[self._cursor]
            self._cursor += 1
        if callable(entry):
            entry = entry(body)
        return {"content": entry} if isinstance(entry, str) else dict(entry)

    def _log(self, record: dict) -> None:
        """Append to ``log_path`` as JSON lines, so a test can read a subprocess's traffic."""
        if self.log_path is not None:
            with self.log_path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")


# --------------------------------------------------------------------------
# Command line: python -m tests.scripted_model --port N --script FILE.json
# --------------------------------------------------------------------------


def load_script(path: str | Path) -> tuple[list, dict]:
    """Read a script file: a JSON list of replies, or ``{"script": [...], **options}``.

    Options in the object form are ``require_key`` and ``accept_dict_arguments``.
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, list):
        return data, {}
    options = {k: data[k] for k in ("require_key", "accept_dict_arguments") if k in data}
    return list(data.get("script", [])), options


def _parse_args(argv: Iterable[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: any free port)")
    parser.add_argument("--script", required=True, help="JSON file with the replies")
    parser.add_argument("--require-key", help="demand 'Authorization: Bearer KEY'")
    parser.add_argument("--accept-dict-arguments", action="store_true",
                        help="allow tool call arguments as objects in the history")
    parser.add_argument("--log", help="append received requests and violations here as JSON lines")
    return parser.parse_args(None if argv is None else list(argv))


def main(argv: Iterable[str] | None = None) -> int:
    """Serve a script file until SIGTERM/SIGINT; print ``READY <base_url>`` when listening."""
    args = _parse_args(argv)
    script, options = load_script(args.script)
    if args.require_key is not None:
        options["require_key"] = args.require_key
    if args.accept_dict_arguments:
        options["accept_dict_arguments"] = True
    model = ScriptedModel(script, port=args.port, log_path=args.log, **options).start()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    print(f"READY {model.base_url}", flush=True)
    while not done.wait(0.2):
        pass
    model.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
