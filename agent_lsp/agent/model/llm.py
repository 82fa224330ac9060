"""The model client: one `POST /chat/completions`, streamed, retried, and honest about failure.

Real servers misbehave in known ways, and each has a defined outcome here:
tool-call ids of any shape; `arguments` as string fragments or as a dict; an
`{"error": ...}` object inside an HTTP-200 stream; a stream that stops without a
finish reason (an error, never a half tool call); a reply cut at the token limit
(reported as finish_reason "length" for the loop to handle); a context-overflow 400
(flagged so the loop can compact and retry). 429, 5xx, dropped connections and
timeouts are retried with exponential backoff and jitter, honouring Retry-After, and
the wait itself is cancellable. The API key goes into the Authorization header and
nowhere else: every error text is scrubbed of it.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import httpx

from ..settings import Settings

OVERFLOW_MARKERS = (
    "exceed_context_size_error",
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "too many tokens",
    "prompt is too long",
)
BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0
RETRY_AFTER_CAP = 120.0


class ModelError(Exception):
    """A failed model call, described in one line a person can act on."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 overflow: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.overflow = overflow
        self.retry_after = retry_after


@dataclass
class Reply:
    message: dict[str, Any]
    finish_reason: str
    usage: dict[str, Any] | None = None
    truncated_tool_call: bool = False  # finish_reason "length" arrived inside a tool call


@dataclass
class ModelClient:
    settings: Settings
    on_status: Callable[[str], None] = lambda _text: None
    _http: httpx.AsyncClient | None = field(default=None, repr=False)

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def prepare(self) -> None:
        """Build the HTTP client in a thread: its TLS context (the CA bundle) takes ~0.2 s
        of CPU, which an event loop that also answers an editor should not spend."""
        if self._http is None:
            await asyncio.to_thread(self._client)

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            s = self.settings
            self._http = httpx.AsyncClient(
                timeout=httpx.Timeout(connect=15.0, read=s.request_timeout, write=60.0, pool=15.0),
                trust_env=True,
            )
        return self._http

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.settings.api_key:
            h["Authorization"] = f"Bearer {self.settings.api_key}"
        return h

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        on_text: Callable[[str], None] = lambda _t: None,
    ) -> Reply:
        """One model reply, retried on transient failures. Raises ModelError."""
        attempts = self.settings.max_retries + 1
        last: ModelError | None = None
        for attempt in range(1, attempts + 1):
            try:
                return await self._once(messages, tools, on_text)
            except ModelError as e:
                last = e
            except httpx.TimeoutException as e:
                last = ModelError(f"the model did not answer in time ({type(e).__name__})", retryable=True)
            except (httpx.ConnectError, httpx.UnsupportedProtocol) as e:
                last = ModelError(f"cannot reach the model at {self.settings.base_url}: {type(e).__name__}: {e}",
                                  retryable=True)
            except httpx.TransportError as e:  # reached, but the connection broke before the reply was complete
                last = ModelError(f"the connection to the model at {self.settings.base_url} broke mid-reply: "
                                  f"{type(e).__name__}: {e}", retryable=True)
            last = ModelError(self.settings.scrub(str(last)), status=last.status, retryable=last.retryable,
                              overflow=last.overflow, retry_after=last.retry_after)
            if not last.retryable or attempt == attempts:
                break
            delay = last.retry_after
            if delay is None:
                delay = min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1)) * (0.5 + random.random())
            self.on_status(f"model request failed ({last}); retrying in {delay:.1f}s (attempt {attempt + 1}/{attempts})")
            await asyncio.sleep(delay)  # cancellable: a cancel during the wait ends the turn
        assert last is not None
        if last.retryable and attempts > 1:
            raise ModelError(f"model request failed after {attempts} attempts: {last}", status=last.status)
        raise last

    def _body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.settings.model, "messages": messages}
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        if self.settings.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    async def _once(self, messages, tools, on_text) -> Reply:
        url = self.settings.base_url.rstrip("/") + "/chat/completions"
        body = self._body(messages, tools)
        if not self.settings.stream:
            r = await self._client().post(url, json=body, headers=self._headers())
            if r.status_code != 200:
                raise http_error(r.status_code, r.text, r.headers)
            try:
                data = r.json()
            except ValueError:
                raise ModelError(f"the model sent a reply that is not JSON: {r.text[:200]}", retryable=True) from None
            if isinstance(data, dict) and data.get("error") is not None:
                raise stream_error(data["error"])
            try:
                choice = data["choices"][0]
                message = choice["message"]
            except (KeyError, IndexError, TypeError):
                raise ModelError(f"the model sent a reply that is not a chat completion: {r.text[:200]}") from None
            if not isinstance(message, dict):
                raise ModelError(f"the model sent a reply that is not a chat completion: {r.text[:200]}")
            _normalise_tool_calls(message)
            if message.get("content"):
                on_text(message["content"])
            finish = choice.get("finish_reason") or "stop"
            return Reply(message, finish, data.get("usage"),
                         truncated_tool_call=finish == "length" and bool(message.get("tool_calls")))
        async with self._client().stream("POST", url, json=body, headers=self._headers()) as r:
            if r.status_code != 200:
                text = (await r.aread()).decode("utf-8", "replace")
                raise http_error(r.status_code, text, r.headers)
            return await read_stream(r.aiter_lines(), on_text)


def _retry_after(headers: httpx.Headers | dict[str, str]) -> float | None:
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, min(seconds, RETRY_AFTER_CAP))


def _is_overflow(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in OVERFLOW_MARKERS)


def http_error(status: int, body: str, headers: httpx.Headers | dict[str, str]) -> ModelError:
    start = " ".join(body.split())[:300]
    if status in (400, 413) and _is_overflow(body):
        return ModelError(f"HTTP {status}: the conversation is too long for the model's context: {start}",
                          status=status, overflow=True)
    retryable = status in (408, 409, 429) or status >= 500
    hint = ""
    if status == 401:
        hint = " (check the API key: AGENT_API_KEY or OPENAI_API_KEY)"
    elif status == 404:
        hint = " (check the base URL and the model name)"
    return ModelError(f"HTTP {status}{hint}: {start}", status=status, retryable=retryable,
                      retry_after=_retry_after(headers) if retryable else None)


def stream_error(err: Any) -> ModelError:
    text = json.dumps(err) if not isinstance(err, str) else err
    message = err.get("message", text) if isinstance(err, dict) else text
    code = err.get("code") if isinstance(err, dict) else None
    status = code if isinstance(code, int) else None
    if _is_overflow(text):
        return ModelError(f"the conversation is too long for the model's context: {message}", status=status, overflow=True)
    retryable = status is not None and (status == 429 or status >= 500)
    return ModelError(f"the model server reported an error: {message}", status=status, retryable=retryable)


DRAIN_SECONDS = 1.0


async def _drain(lines) -> None:
    """Read what follows [DONE] to the end of the body, briefly.

    A response closed before its end cannot go back to the pool, and every step would
    pay a new TCP (and TLS) connection; a server that keeps the body open after [DONE]
    only costs this short wait.
    """

    async def rest() -> None:
        async for _ in lines:
            pass

    try:
        await asyncio.wait_for(rest(), DRAIN_SECONDS)
    except (TimeoutError, httpx.HTTPError):
        pass


async def read_stream(lines, on_text: Callable[[str], None]) -> Reply:
    """Reassemble an SSE chat-completion stream into one assistant message."""
    text_parts: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish: str | None = None
    usage: dict[str, Any] | None = None
    async for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if not data:
            continue
        if data == "[DONE]":
            await _drain(lines)
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ModelError(f"the model sent a stream chunk that is not JSON: {data[:200]}", retryable=True) from None
        if not isinstance(chunk, dict):
            continue
        if chunk.get("error") is not None:
            raise stream_error(chunk["error"])
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            piece = delta.get("content")
            if isinstance(piece, str) and piece:
                text_parts.append(piece)
                on_text(piece)
            for pos, frag in enumerate(delta.get("tool_calls") or []):
                _merge_tool_fragment(calls, pos, frag)
            if choice.get("finish_reason"):
                finish = choice["finish_reason"]
    if finish is None:
        raise ModelError("the model's reply stream ended without a finish reason (connection cut?)", retryable=True)
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text_parts) or None}
    tool_calls = [calls[i] for i in sorted(calls)]
    for c in tool_calls:
        c["function"]["arguments"] += "".join(c.pop("_parts", ()))
        if not c.get("id"):
            c["id"] = "call_" + uuid.uuid4().hex[:24]
    if tool_calls:
        message["tool_calls"] = tool_calls
    elif message["content"] is None:
        message["content"] = ""
    truncated = finish == "length" and bool(tool_calls)
    if tool_calls and finish not in ("tool_calls", "length", "function_call"):
        finish = "tool_calls"  # some servers say "stop" after tool calls
    return Reply(message, finish, usage, truncated_tool_call=truncated)


def _normalise_tool_calls(message: dict[str, Any]) -> None:
    """What the streaming path does while merging: `arguments` as a JSON string (some servers
    send an object, which the API rejects when it comes back in the history) and an id on every call."""
    for c in message.get("tool_calls") or []:
        if not isinstance(c, dict):
            continue
        fn = c.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("arguments"), dict):
            fn["arguments"] = json.dumps(fn["arguments"])
        if not c.get("id"):
            c["id"] = "call_" + uuid.uuid4().hex[:24]


def _merge_tool_fragment(calls: dict[int, dict[str, Any]], pos: int, frag: dict[str, Any]) -> None:
    index = frag.get("index", pos)
    entry = calls.setdefault(index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
    if frag.get("id"):
        entry["id"] = frag["id"]
    fn = frag.get("function") or {}
    name = fn.get("name")
    if name:
        current = entry["function"]["name"]
        if not current:
            entry["function"]["name"] = name
        elif name != current:  # a server that streams the name in pieces
            entry["function"]["name"] = current + name
    args = fn.get("arguments")
    if isinstance(args, dict):
        entry["function"]["arguments"] = json.dumps(args)
        entry.pop("_parts", None)
    elif isinstance(args, str):  # joined once at the end: `+=` on a dict's string copies it every time (quadratic)
        entry.setdefault("_parts", []).append(args)
