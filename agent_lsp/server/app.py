"""The language server object and the state it carries between requests.

Feature modules (`agent_lsp/server/features/`) register their handlers on the one
`server` instance defined here; this module only holds state and the small helpers
those handlers share. Nothing here waits on the model, the disk or a running task:
answering requests must stay instant while the agent works.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcMethodNotFound
from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from .. import __version__
from .clients import COC
from .config import ServerConfig
from .conformance import PARSE_ERRORS, Conformance
from .framing import ResyncReader
from .review_queue import ReviewQueue

log = logging.getLogger("agent_lsp.server")


@dataclass(frozen=True)
class _Unreadable:
    """A message whose params do not fit the LSP type of its method."""

    id: Any
    method: str
    problems: str


def _problems(exc: BaseException) -> str:
    """cattrs' validation errors as short JSON paths: `required field missing @ params.range`."""
    cause = exc.__cause__ or exc
    try:
        lines = cattrs.transform_error(cause) if isinstance(cause, cattrs.BaseValidationError) else []
    except Exception:  # never let the explanation fail the answer
        lines = []
    text = "; ".join(lines[:3]).replace("@ $.", "@ ") or type(cause).__name__
    return re.sub(r"(?<=[a-z])_([a-z])", lambda m: m.group(1).upper(), text)  # JSON spells fields in camelCase


class AgentProtocol(Conformance, LanguageServerProtocol):
    """pygls' protocol, plus the JSON-RPC rules of conformance.py, and two repairs:

    - `$/cancelRequest` for a running task's request really cancels it (pygls cancels
      only the request's outer future; the command's coroutine would go on);
    - a request whose params do not fit its LSP type gets an InvalidParams error
      (pygls drops it without an answer, so the editor would wait forever); such a
      notification is ignored with a warning in the log.
    """

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        super()._handle_cancel_notification(msg_id)
        server = self._server
        if isinstance(server, AgentServer):
            server.cancel_request(msg_id)

    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except JsonRpcInvalidParams as e:
            if isinstance(data, dict) and isinstance(data.get("method"), str):
                return _Unreadable(data.get("id"), data["method"], _problems(e))
            raise

    def handle_message(self, message: Any) -> None:
        if not isinstance(message, _Unreadable):
            super().handle_message(message)
            return
        text = f"invalid params for {message.method}: {message.problems}"
        if message.id is None:
            log.warning("ignored a notification with %s", text)
            if isinstance(self._server, AgentServer):
                self._server.log_line(f"agent-lsp: ignored a notification with {text}", types.MessageType.Warning)
            return
        self._send_response(message.id, error=JsonRpcInvalidParams(message=text).to_response_error())


class AgentServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "agent-lsp",
            __version__,
            protocol_cls=AgentProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
        )
        self.config = ServerConfig()
        self.tasks: Any = None  # TaskRunner, set by features.commands at import
        self.background: set[asyncio.Task] = set()
        self._doc_waiters: dict[str, list[asyncio.Future]] = {}
        self.review = ReviewQueue(self)
        # uri -> (when the editor last changed or saved it (monotonic), saved?)
        self.person_edits: dict[str, tuple[float, bool]] = {}

    # ------------------------------------------------------------ client facts

    def client_has(self, dotted: str) -> bool:
        """Is a (nested, snake_case) client capability present and truthy?"""
        value: Any = self.client_capabilities
        for part in dotted.split("."):
            value = getattr(value, part, None)
            if value is None:
                return False
        return bool(value)

    def experimental(self, name: str) -> Any:
        """`experimental.agentLsp.<name>` from the client's capabilities, if any."""
        exp = getattr(self.client_capabilities, "experimental", None)
        if isinstance(exp, dict):
            section = exp.get("agentLsp")
            if isinstance(section, dict):
                return section.get(name)
        return None

    def inline_review(self) -> bool:
        """Review edits as diagnostics (no client preview), per the `review` setting."""
        mode = self.config.options.review
        if mode == "inline":
            return True
        if mode == "preview":
            return False
        if getattr(getattr(self, "editor_client", None), "kind", "") == COC:
            return True  # coc's "Confirm edits" shows a label, not the change (clients.py)
        return not self.client_has("workspace.workspace_edit.change_annotation_support")

    @property
    def encoding(self) -> str:
        enc = self.workspace.position_encoding
        return getattr(enc, "value", enc) or types.PositionEncodingKind.Utf16.value

    def roots(self) -> list[Path]:
        folders = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        paths = [Path(p) for p in folders if p]
        if not paths and self.workspace.root_path:
            paths = [Path(self.workspace.root_path)]
        return paths

    # ------------------------------------------------------------ documents

    def open_document(self, uri: str):
        """The open document for `uri`, or None when the editor does not have it open."""
        return self.workspace.text_documents.get(uri)

    def person_edited(self, uri: str, saved: bool) -> None:
        """The editor changed or saved `uri` (undo must not revert what the person did meanwhile)."""
        self.person_edits[uri] = (time.monotonic(), saved)

    def document_changed(self, uri: str) -> None:
        for fut in self._doc_waiters.pop(uri, []):
            if not fut.done():
                fut.set_result(None)

    async def wait_document_change(self, uri: str, timeout: float) -> bool:
        """Wait for the next didOpen/didChange/didClose of `uri`; False on timeout."""
        fut = asyncio.get_running_loop().create_future()
        self._doc_waiters.setdefault(uri, []).append(fut)
        try:
            await asyncio.wait_for(fut, timeout)
            return True
        except TimeoutError:
            return False
        finally:
            waiters = self._doc_waiters.get(uri)
            if waiters and fut in waiters:
                waiters.remove(fut)

    # ------------------------------------------------------------ tasks

    def cancel_request(self, msg_id: Any) -> None:
        if self.tasks is not None:
            self.tasks.cancel_request(msg_id)

    def spawn(self, coro) -> asyncio.Task:
        """Run in the background; failures are logged, never lost silently."""
        task = asyncio.ensure_future(coro)
        self.background.add(task)

        def done(t: asyncio.Task) -> None:
            self.background.discard(t)
            if not t.cancelled() and t.exception() is not None:
                log.error("background task failed: %r", t.exception())

        task.add_done_callback(done)
        return task

    def start_io(self, stdin=None, stdout=None) -> None:
        """pygls' stdio loop, with the header lines read through framing.ResyncReader (one
        broken frame must not make every later message unreadable)."""
        self._stop_event = threading.Event()
        reader = ResyncReader(StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool))
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(run_async(stop_event=self._stop_event, reader=reader, protocol=self.protocol,
                                  logger=logging.getLogger("pygls.server"), error_handler=self.report_server_error))
        except BrokenPipeError:
            log.error("the editor closed the connection")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def report_server_error(self, error: Exception, source) -> None:
        """Out-of-band errors go to the log as one line; a person never gets a traceback popup."""
        if isinstance(error, JsonRpcMethodNotFound):  # answered as such; a multiplexer's routing, not our bug
            log.info("%s", error)
            return
        if source is JsonRpcException and isinstance(error, PARSE_ERRORS):  # the read loop: a body not JSON
            self.protocol.refuse_unparsable(error)
            return
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)
        self.log_line(f"agent-lsp: internal error: {type(error).__name__}: {error}", types.MessageType.Error)

    # ------------------------------------------------------------ person-facing output

    def log_line(self, text: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=text))

    def show(self, text: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=text))


server = AgentServer()
