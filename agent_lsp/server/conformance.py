"""JSON-RPC and LSP rules pygls 2.1 does not keep, for hostile or broken clients.

- A request whose `id` is not a number or a string (a list, an object, `true`, null)
  is an Invalid Request (-32600), answered with id null. pygls fails on it (a list is
  unhashable) and answers -32603 with a Python traceback in `data`.
- A message that is not a JSON-RPC 2.0 object (no or another `jsonrpc`, a method that
  is not a string, a bare array or number) is an Invalid Request too, answered when it
  carries a usable id; pygls logs a traceback and answers nothing.
- After `shutdown` every request but `exit` is answered InvalidRequest (LSP: "should
  error with InvalidRequest"); pygls drops them, so an editor waits for ever.
- No error the server sends carries a traceback: pygls puts one in `data` for -32603.
- A body that is not JSON is answered Parse error (-32700, id null); pygls only logs it.

`Conformance` is mixed into the server's protocol class; `one_line_logs` makes every
log record one line, so a traceback never reaches an editor's stderr buffer either.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("agent_lsp.server")

INVALID_REQUEST = -32600
PARSE_ERROR = -32700
# what pygls' read loop raises for a body that is not JSON (cut short, not UTF-8, nested too deep)
PARSE_ERRORS = (json.JSONDecodeError, UnicodeDecodeError, RecursionError)
EXIT = "exit"


@dataclass(frozen=True)
class Invalid:
    """A message that is no valid JSON-RPC 2.0 request, notification or response."""

    id: Any  # the id to answer with: the message's own when usable, else None
    reason: str
    answer: bool  # a request (answer it) or a notification / response (log and drop)


def valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check(data: Any) -> Invalid | None:
    """Why this decoded top-level message is not valid JSON-RPC 2.0, or None when it is."""
    if not isinstance(data, dict):
        kind = "an array (batches are not part of LSP)" if isinstance(data, list) else type(data).__name__
        return Invalid(None, f"a message must be a JSON object, got {kind}", True)
    has_id = "id" in data
    msg_id = data.get("id")
    usable = msg_id if valid_id(msg_id) else None
    method = data.get("method")
    is_request = has_id and "method" in data
    if data.get("jsonrpc") != "2.0":
        return Invalid(usable, 'jsonrpc must be "2.0"', is_request)
    if "method" in data and not isinstance(method, str):
        return Invalid(usable, "method must be a string", has_id)
    if has_id and not valid_id(msg_id):
        shown = type(msg_id).__name__ if msg_id is not None else "null"
        return Invalid(None, f"id must be a number or a string, got {shown}", "method" in data)
    if "method" not in data and not has_id:
        return Invalid(None, "a message needs a method or an id", True)
    return None


def is_request(message: Any) -> bool:
    return getattr(message, "method", None) is not None and getattr(message, "id", None) is not None


class Conformance:
    """Mixed into the protocol class before pygls' LanguageServerProtocol (see the module doc)."""

    _shutdown: bool

    def structure_message(self, data: dict[str, Any]):  # json.loads' object_hook: every object, inner first
        if isinstance(data, dict) and "jsonrpc" in data:
            problem = check(data) or self._notification_with_id(data)
            if problem is not None:
                return problem
        return super().structure_message(data)  # type: ignore[misc]

    def _notification_with_id(self, data: dict[str, Any]) -> Invalid | None:
        """A notification method sent as a request: pygls would drop its id and never answer."""
        if "id" not in data or not isinstance(data.get("method"), str):
            return None
        kind = self.get_message_type(data["method"])  # type: ignore[attr-defined]
        fields = getattr(kind, "__attrs_attrs__", None)
        if fields is None or any(f.name == "id" for f in fields):
            return None
        return Invalid(data["id"], f"{data['method']} is a notification: it takes no id", True)

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, Invalid) and not hasattr(message, "jsonrpc"):
            message = check(message) or Invalid(None, "not a JSON-RPC 2.0 message", False)
        if isinstance(message, Invalid):
            self._refuse(message.id, message.reason, message.answer)
            return
        if self._shutdown and is_request(message) and message.method != EXIT:
            self._refuse(message.id, f"the server is shut down ({message.method} after shutdown)", True)
            return
        super().handle_message(message)  # type: ignore[misc]

    def _refuse(self, msg_id: Any, reason: str, answer: bool) -> None:
        log.warning("invalid message: %s", reason)
        if answer:
            self._send_error(msg_id, INVALID_REQUEST, f"Invalid Request: {reason}")

    def refuse_unparsable(self, error: BaseException) -> None:
        """Parse error, id null (none could be read), for a body the read loop could not decode."""
        why = "it nests too deep" if isinstance(error, RecursionError) else str(error).splitlines()[0][:200]
        log.warning("unreadable message: %s", why)
        self._send_error(None, PARSE_ERROR, f"Parse error: {why}")

    def _send_error(self, msg_id: Any, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": msg_id,  # type: ignore[attr-defined]
                         "error": {"code": code, "message": message}})

    def _send_response(self, msg_id: Any, result: Any | None = None, error: Any | None = None):
        if error is not None and getattr(error, "data", None) is not None:
            data = error.data
            if isinstance(data, dict) and "traceback" in data:
                error.data = None  # pygls' -32603 carries the Python traceback there
        return super()._send_response(msg_id, result, error)  # type: ignore[misc]


class OneLine(logging.Filter):
    """Every record one line: an exception becomes `: Type: message` (no traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info:
            exc = record.exc_info[1]
            if exc is not None:
                record.msg = f"{record.getMessage()}: {type(exc).__name__}: {exc}"
                record.args = None
            record.exc_info = None
            record.exc_text = None
        if record.stack_info:
            record.stack_info = None
        text = record.getMessage()
        if "\n" in text:  # pygls formats tracebacks into the message itself
            first = text.splitlines()[0].strip()
            record.msg, record.args = f"{first} (details left out)", None
        return True


def one_line_logs(handlers: list[logging.Handler]) -> None:
    """Put OneLine on these handlers (the server's stderr and log file)."""
    for handler in handlers:
        handler.addFilter(OneLine())
