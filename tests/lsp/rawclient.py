"""A raw JSON-RPC client for `agent-lsp serve`: it sends exactly the bytes a test gives.

pytest-lsp's typed client refuses to send malformed messages (an id that is a list, a
method that is a number, a body that is not JSON), so the conformance and fuzz tests
talk to the server through this one: a subprocess on pipes, a reader thread that
splits the output into messages (keeping each raw read too), and stock answers to the
server's own requests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pygls.uris import from_fs_path

Answer = Callable[[dict[str, Any]], dict[str, Any]]


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def default_answer(msg: dict[str, Any]) -> dict[str, Any]:
    """What a cautious editor answers: no edit applied, no question answered, no settings."""
    method = msg.get("method")
    if method == "workspace/applyEdit":
        return {"result": {"applied": False, "failureReason": "declined"}}
    if method == "workspace/configuration":
        items = (msg.get("params") or {}).get("items") or []
        return {"result": [None for _ in items]}
    return {"result": None}


class RawClient:
    def __init__(self, root: Path, model_url: str, env: dict[str, str] | None = None,
                 answer: Answer = default_answer, read_pause: float = 0.0) -> None:
        server_env = dict(os.environ, AGENT_BASE_URL=model_url, AGENT_MODEL="scripted")
        server_env.update(env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent_lsp", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=server_env, cwd=str(root),
        )
        self.root = root
        self.answer = answer
        self.read_pause = read_pause  # seconds to sleep before each read (a busy editor)
        self.messages: list[dict[str, Any]] = []
        self.reads: list[list[dict[str, Any]]] = []  # the messages each read completed, in order
        self.bad_frames: list[bytes] = []
        self.lock = threading.Condition()
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # ------------------------------------------------------------ sending

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj: Any) -> None:
        self.send_bytes(frame(json.dumps(obj).encode()))

    def request(self, method: str, params: Any = None, msg_id: Any = None) -> Any:
        msg_id = msg_id if msg_id is not None else f"r{len(self.messages)}-{time.monotonic_ns()}"
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return msg_id

    def notify(self, method: str, params: Any = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    # ------------------------------------------------------------ receiving

    def _read(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buf = b""
        while True:
            if self.read_pause:
                time.sleep(self.read_pause)
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                with self.lock:
                    self.lock.notify_all()
                return
            buf += chunk
            got: list[dict[str, Any]] = []
            while True:
                head, sep, rest = buf.partition(b"\r\n\r\n")
                if not sep:
                    break
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), None)
                if length is None or len(rest) < length:
                    break
                body, buf = rest[:length], rest[length:]
                try:
                    got.append(json.loads(body))
                except ValueError:
                    self.bad_frames.append(body)
            with self.lock:
                self.reads.append(got)
                self.messages.extend(got)
                self.lock.notify_all()
            for msg in got:
                if "method" in msg and "id" in msg:  # the server asks: answer like an editor
                    try:
                        self.send({"jsonrpc": "2.0", "id": msg["id"], **self.answer(msg)})
                    except (BrokenPipeError, ValueError):
                        return

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr += line

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for m in self.messages:
                    if predicate(m):
                        return m
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no such message within {timeout}s; last: {self.messages[-5:]}")
                self.lock.wait(min(left, 0.1))

    def response(self, msg_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def call(self, method: str, params: Any = None, timeout: float = 10.0) -> dict[str, Any]:
        return self.response(self.request(method, params), timeout)

    def responses_to(self, msg_id: Any) -> list[dict[str, Any]]:
        with self.lock:
            return [m for m in self.messages if m.get("id") == msg_id and "method" not in m]

    # ------------------------------------------------------------ a session

    def initialize(self, capabilities: dict[str, Any] | None = None, options: dict[str, Any] | None = None,
                   client_info: dict[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {
            "processId": None,
            "rootUri": from_fs_path(str(self.root)),
            "workspaceFolders": [{"uri": from_fs_path(str(self.root)), "name": self.root.name}],
            "capabilities": capabilities if capabilities is not None else {},
            "initializationOptions": {"maxSteps": 10, "commandTimeout": 5, **(options or {})},
        }
        if client_info is not None:
            params["clientInfo"] = client_info
        result = self.call("initialize", params, timeout=20)
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None) -> str:
        uri = from_fs_path(str(path))
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": path.read_text() if text is None else text}})
        return uri

    def close(self, timeout: float = 5.0) -> int:
        """shutdown, exit, and the exit code (the process is killed if it lingers)."""
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, msg_id="final-shutdown")
                try:
                    self.response("final-shutdown", timeout)
                except AssertionError:
                    pass
                self.notify("exit")
            return self.proc.wait(timeout)
        except (subprocess.TimeoutExpired, BrokenPipeError, OSError):
            self.proc.kill()
            return self.proc.wait()
