"""agent-lsp behind the multiplexer rass (PyPI rassumfrassum) with a real `ruff server`.

rass answers `initialize` with what its servers said within 3 s and drops a slower one
for the whole session. emacs-client/rass-agent-lsp.py gives agent-lsp the time it needs
on a busy machine; here agent-lsp starts 4 s late on purpose, with and without it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

BIN = Path(sys.executable).parent
PRESET = Path(__file__).resolve().parents[2] / "emacs-client" / "rass-agent-lsp.py"
SLOW_AGENT = ["sh", "-c", 'sleep 4; exec "$0" -m agent_lsp serve', sys.executable]


class RawClient:
    """A JSON-RPC client over rass's stdio. (lsprotocol cannot read ruff's
    notebookDocumentSync capability, so pygls' client would fail at initialize.)"""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 0

    def _write(self, msg: dict[str, Any]) -> None:
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        self.next_id += 1
        my_id = self.next_id
        self._write({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params})
        while True:
            msg = await asyncio.wait_for(self._read(), timeout)
            if "method" in msg and "id" in msg:  # the servers' requests: a client that knows none of them
                self._write({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif msg.get("id") == my_id:
                assert "error" not in msg, msg
                return msg["result"]

    async def _read(self) -> dict[str, Any]:
        length = 0
        while True:
            line = (await self.proc.stdout.readline()).decode()
            if not line:
                raise AssertionError("rass closed its output")
            if line.lower().startswith("content-length:"):
                length = int(line.split(":")[1])
            elif line in ("\r\n", "\n") and length:
                return json.loads(await self.proc.stdout.readexactly(length))


@pytest.fixture
async def rass_procs():
    procs: list[asyncio.subprocess.Process] = []
    yield procs
    for p in procs:
        if p.returncode is None:
            p.kill()
            await p.wait()


async def start_rass(procs, root: Path, model_url: str, *rass_args: str) -> tuple[RawClient, dict[str, Any]]:
    for tool in ("rass", "ruff"):
        if not (BIN / tool).exists():
            pytest.fail(f"{tool} not found next to {sys.executable}: pip install -e '.[dev]' installs it")
    env = dict(os.environ, AGENT_BASE_URL=model_url, AGENT_MODEL="scripted")
    proc = await asyncio.create_subprocess_exec(
        str(BIN / "rass"), *rass_args, "--", str(BIN / "ruff"), "server", "--", *SLOW_AGENT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env,
    )
    procs.append(proc)
    client = RawClient(proc)
    result = await client.request("initialize", {
        "processId": None, "rootUri": root.as_uri(), "capabilities": {"textDocument": {}},  # rass reads it
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
    })
    client.notify("initialized", {})
    return client, result


def _commands(result: dict[str, Any]) -> list[str]:
    return list((result["capabilities"].get("executeCommandProvider") or {}).get("commands") or [])


async def test_with_the_preset_a_slow_agent_lsp_stays_in_the_connection(rass_procs, workspace, model):
    client, result = await start_rass(rass_procs, workspace, model.base_url, str(PRESET))
    assert "agentLsp.fixDiagnostic" in _commands(result), _commands(result)
    (workspace / "app.py").write_text("import os\n")
    uri = (workspace / "app.py").as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": "import os\n"}})
    where = {"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 9}}
    diag = {"range": where, "message": "`os` imported but unused", "source": "Ruff", "code": "F401", "severity": 2}
    actions = await client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": where, "context": {"diagnostics": [diag]}})
    titles = [a["title"] for a in actions]
    assert "Fix with agent: `os` imported but unused" in titles, titles  # from agent-lsp, through rass
    assert any(t.startswith("Ruff") for t in titles), titles  # and ruff's own, in the same answer
    await client.request("shutdown", None)
    client.notify("exit", None)
    rass_procs[0].stdin.close()  # what an editor does next
    assert await asyncio.wait_for(rass_procs[0].wait(), 15) == 0


async def test_without_it_rass_drops_a_slow_agent_lsp(rass_procs, workspace, model):
    """Why the preset exists: rass's own 3 s leave agent-lsp out of the session."""
    client, result = await start_rass(rass_procs, workspace, model.base_url)
    assert not [c for c in _commands(result) if c.startswith("agentLsp.")], _commands(result)
