"""One language server the agent runs itself: started once, fed the edited text, asked for its problems.

pygls' `LanguageClient` does the JSON-RPC; this adds what a diagnostics-only client
needs: full-text didOpen/didChange per file with our own version numbers, and the
answer for exactly that version, pulled with `textDocument/diagnostic` when the server
offers it, else the `publishDiagnostics` that names the version (or, for servers that
send no version, the first one after our change).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path

from .. import __version__
from ..agent.childproc import SECRET_VARS
from ..jsonish import plain

log = logging.getLogger("agent_lsp.lspclient")

START_TIMEOUT = 30.0  # seconds for initialize; the edits meanwhile go on without this server
STOP_TIMEOUT = 2.0
LANGUAGES = {
    ".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript",
    ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript", ".rs": "rust", ".go": "go",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".java": "java", ".rb": "ruby",
    ".lua": "lua", ".sh": "shellscript", ".json": "json", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml",
    ".md": "markdown", ".html": "html", ".css": "css", ".cs": "csharp", ".php": "php", ".swift": "swift",
    ".kt": "kotlin", ".zig": "zig", ".ex": "elixir", ".hs": "haskell", ".ml": "ocaml",
}


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, reading the initialize answer as plain JSON.

    lsprotocol 2025.0.0 cannot structure some real servers' capabilities (ruff's
    `notebookDocumentSync` selector), which would make initialize fail; we only need to
    know whether the server offers pull diagnostics.
    """

    def get_result_type(self, method: str):
        return None if method == types.INITIALIZE else super().get_result_type(method)


class ServerGone(Exception):
    """The server process ended (or never started)."""


class Connection:
    def __init__(self, command: list[str], root: Path) -> None:
        self.command = command
        self.root = root
        self.client = LanguageClient("agent-lsp", __version__, protocol_cls=_Protocol)
        self.pull = False  # the server answers textDocument/diagnostic
        self.docs: dict[str, tuple[int, str]] = {}  # uri -> (our version, text sent)
        self.results: dict[str, tuple[int, list[dict[str, Any]]]] = {}  # uri -> (version, diagnostics)
        self.pushed: dict[str, tuple[int | None, int, list[dict[str, Any]]]] = {}  # uri -> (version, seq, items)
        self.seq = 0  # publishDiagnostics received so far
        self._marks: dict[str, tuple[int, int]] = {}  # uri -> (version sent, seq when it was sent)
        self.stderr: deque[str] = deque(maxlen=5)
        self._changed = asyncio.Condition()
        self._install()

    # ------------------------------------------------------------ life

    @property
    def alive(self) -> bool:
        proc = self.client._server
        return proc is not None and proc.returncode is None and not self.client.stopped

    async def start(self) -> None:
        """Start and initialize; raises ServerGone with a one-line reason."""
        try:
            env = {k: v for k, v in os.environ.items() if k not in SECRET_VARS}  # the model's key stays ours
            await self.client.start_io(self.command[0], *self.command[1:], cwd=str(self.root), env=env)
        except (OSError, ValueError) as e:
            raise ServerGone(f"{type(e).__name__}: {e}") from None
        proc = self.client._server
        if proc is not None and proc.stderr is not None:
            self.client._async_tasks.append(asyncio.ensure_future(self._drain(proc.stderr)))
        root_uri = from_fs_path(str(self.root))
        params = types.InitializeParams(
            process_id=os.getpid(),
            root_uri=root_uri,
            workspace_folders=[types.WorkspaceFolder(uri=root_uri, name=self.root.name)],
            client_info=types.ClientInfo(name="agent-lsp", version=__version__),
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    synchronization=types.TextDocumentSyncClientCapabilities(),
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
                    diagnostic=types.DiagnosticClientCapabilities(dynamic_registration=False),
                ),
                workspace=types.WorkspaceClientCapabilities(workspace_folders=True),
            ),
        )
        try:
            result = await asyncio.wait_for(self.client.initialize_async(params), START_TIMEOUT)
        except asyncio.CancelledError:  # the session ended while it started: leave no process behind
            if proc is not None and proc.returncode is None:
                proc.kill()
            raise
        except Exception as e:
            await self.aclose()
            why = "; ".join(self.stderr) or f"{type(e).__name__}: {e}"
            raise ServerGone(f"initialize failed: {why[:300]}") from None
        result = plain(result)
        caps = result.get("capabilities") if isinstance(result, dict) else None
        self.pull = bool(caps.get("diagnosticProvider")) if isinstance(caps, dict) else False
        self.client.initialized(types.InitializedParams())

    async def aclose(self) -> None:
        proc = self.client._server
        if self.alive:
            try:
                await asyncio.wait_for(self.client.shutdown_async(None), STOP_TIMEOUT)
                self.client.exit(None)
            except Exception:
                pass
        if proc is not None and proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), STOP_TIMEOUT)
            except TimeoutError:
                proc.kill()
        try:
            await asyncio.wait_for(self.client.stop(), STOP_TIMEOUT)
        except Exception:
            pass

    async def _drain(self, stream: asyncio.StreamReader) -> None:
        """Read the server's stderr (a full pipe would stop it); keep the last lines for a failure note."""
        while line := await stream.readline():
            text = line.decode("utf-8", "replace").strip()
            if text:
                self.stderr.append(text[:200])
                log.debug("%s: %s", self.command[0], text)

    # ------------------------------------------------------------ what the server sends us

    def _install(self) -> None:
        c = self.client

        @c.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        async def published(params: types.PublishDiagnosticsParams) -> None:
            self.seq += 1
            items = [self._json(d) for d in params.diagnostics]
            self.pushed[params.uri] = (params.version, self.seq, items)
            async with self._changed:
                self._changed.notify_all()

        @c.feature(types.WORKSPACE_CONFIGURATION)
        def configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]  # no settings: each server's defaults

        for method in (types.CLIENT_REGISTER_CAPABILITY, types.CLIENT_UNREGISTER_CAPABILITY,
                       types.WINDOW_WORK_DONE_PROGRESS_CREATE, types.WINDOW_SHOW_MESSAGE_REQUEST):
            c.feature(method)(lambda params: None)

        @c.feature(types.WORKSPACE_APPLY_EDIT)
        def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="agent-lsp only reads diagnostics")

        for method in (types.WINDOW_LOG_MESSAGE, types.WINDOW_SHOW_MESSAGE, types.PROGRESS, types.TELEMETRY_EVENT):
            c.feature(method)(lambda params: None)

    def _json(self, diag: types.Diagnostic) -> dict[str, Any]:
        return self.client.protocol._converter.unstructure(diag, types.Diagnostic)

    # ------------------------------------------------------------ asking

    async def diagnostics(self, path: Path, text: str) -> list[dict[str, Any]]:
        """The server's problems for `path` holding exactly `text`. Raises ServerGone if it died."""
        if not self.alive:
            raise ServerGone("the server exited")
        uri = from_fs_path(str(path)) or ""
        version = self._sync(uri, path, text)
        done = self.results.get(uri)
        if done is not None and done[0] == version:
            return done[1]
        if self.pull:
            items = await self._pull(uri)
        else:
            items = await self._pushed_for(uri, version)
        self.results[uri] = (version, items)
        return items

    def _sync(self, uri: str, path: Path, text: str) -> int:
        """Send `text` unless the server has it already; our version of it."""
        sent = self.docs.get(uri)
        if sent is not None and sent[1] == text:
            return sent[0]
        if sent is None:
            version = 1
            self.client.text_document_did_open(types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=LANGUAGES.get(path.suffix.lower(), path.suffix.lstrip(".") or "plaintext"),
                    version=version, text=text)))
        else:
            version = sent[0] + 1
            self.client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        self.docs[uri] = (version, text)
        self._marks[uri] = (version, self.seq)
        return version

    async def _pull(self, uri: str) -> list[dict[str, Any]]:
        report = await self.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        if getattr(report, "kind", None) == "unchanged":
            prev = self.results.get(uri)
            return prev[1] if prev else []
        return [self._json(d) for d in getattr(report, "items", None) or []]

    async def _pushed_for(self, uri: str, version: int) -> list[dict[str, Any]]:
        """Wait for the publishDiagnostics of `version` (or the first after it was sent, if unversioned)."""
        _, sent_at = self._marks[uri]

        def ready() -> bool:
            got = self.pushed.get(uri)
            if got is None:
                return False
            v, seq, _ = got
            return v == version if v is not None else seq > sent_at

        async with self._changed:
            while not ready():
                if not self.alive:
                    raise ServerGone("the server exited")
                try:
                    await asyncio.wait_for(self._changed.wait(), 0.5)
                except TimeoutError:
                    pass
        return self.pushed[uri][2]
