"""Fuzz: random and malformed messages for every method the server registers, idle and mid-task.

Seeded and bounded (a few hundred messages per phase, a few seconds each). What must
hold, whatever arrives: every request with a usable id gets exactly one answer; every
request with an unusable id gets exactly one -32600 with id null; nothing sent or
logged carries a traceback; the server keeps answering; no file changes without an
accepted edit; and `shutdown` / `exit` still end it cleanly.
"""

from __future__ import annotations

import hashlib
import random
import time
from pathlib import Path
from typing import Any

import pytest

from agent_lsp.server import features  # noqa: F401  (registers the handlers, as `serve` does)
from agent_lsp.server.app import server
from tests.lsp.rawclient import RawClient
from tests.lsp.test_conformance import INVALID_REQUEST, traceback_free
from tests.scripted_model import reply, tool_call

SEED = 20261201
PER_PHASE = 450
NEVER = {"shutdown", "exit"}  # ending the session is tested on its own
DECISIONS = {"agentLsp.cancel", "agentLsp.acceptEdit", "agentLsp.rejectEdit", "agentLsp.undoTask",
             "agentLsp.newSession"}  # a person's decisions: only ever sent malformed here
KEYS = ["textDocument", "uri", "range", "start", "end", "line", "character", "position", "context", "diagnostics",
        "command", "arguments", "text", "version", "contentChanges", "settings", "items", "id", "token", "value",
        "message", "severity", "source", "languageId", "task", "diagnostic", "capabilities", "processId"]


def methods() -> list[str]:
    fm = server.protocol.fm
    names = set(fm.features) | set(fm.builtin_features)
    return sorted(n for n in names if n not in NEVER)


def commands() -> list[str]:
    return sorted(server.protocol.fm.commands)


class Fuzzer:
    def __init__(self, rnd: random.Random, uris: list[str]) -> None:
        self.rnd = rnd
        self.uris = uris
        self.n = 0

    def scalar(self) -> Any:
        r = self.rnd
        return r.choice([
            None, True, False, 0, -1, 2**31, 2**63 + 5, -(2**40), 1.5, float("1e308"), "", "x" * r.randint(1, 3000),
            "\u0000\ud7ff\U0001f600", "file:///etc/passwd", "untitled:1", r.choice(self.uris), "../../..", "2.0",
            r.choice(KEYS),
        ])

    def value(self, depth: int = 0) -> Any:
        r = self.rnd
        kind = r.random()
        if depth > 4 or kind < 0.45:
            return self.scalar()
        if kind < 0.7:
            return [self.value(depth + 1) for _ in range(r.randint(0, 4))]
        return {r.choice(KEYS): self.value(depth + 1) for _ in range(r.randint(0, 5))}

    def position(self) -> Any:
        return {"line": self.rnd.choice([0, 1, 3, -1, 10**9]), "character": self.rnd.choice([0, 2, -5, 10**9])}

    def near_valid(self, method: str) -> Any:
        """Params shaped like the method's own, then one part broken."""
        r = self.rnd
        doc = {"uri": r.choice(self.uris), "version": r.choice([1, 2, None, -1]), "languageId": "python",
               "text": r.choice(["", "x = 1\n", "\ud800"])}
        rng = {"start": self.position(), "end": self.position()}
        base: dict[str, Any] = {"textDocument": doc, "range": rng, "position": self.position(),
                                "context": {"diagnostics": [{"range": rng, "message": "m"}]},
                                "contentChanges": [{"range": rng, "text": "y"}, {"text": "whole\n"}],
                                "settings": {"agentLsp": {"maxSteps": self.scalar()}}, "token": self.scalar()}
        if method == "workspace/executeCommand":
            command = r.choice(commands() + ["agentLsp.nope", ""])
            if command in DECISIONS:  # arguments that are not a list: refused before the command runs
                return {"command": command, "arguments": r.choice([5, True, 1.5])}
            args = self.value()
            base = {"command": command, "arguments": args if args not in ([], None) else [self.value()]}
        keys = list(base)
        for _ in range(r.randint(1, 3)):
            k = r.choice(keys)
            if r.random() < 0.5:
                base.pop(k, None)
            else:
                base[k] = self.value()
        return base

    def message(self, method: str) -> tuple[dict[str, Any], str]:
        """(message, kind): kind is "request", "bad-id" or "notification"."""
        r = self.rnd
        self.n += 1
        params = self.near_valid(method) if r.random() < 0.6 else self.value()
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if r.random() < 0.8:
            msg["params"] = params
        roll = r.random()
        if roll < 0.55:
            msg["id"] = r.choice([f"fz-{self.n}", 10_000 + self.n])
            return msg, "request"
        if roll < 0.7:
            msg["id"] = r.choice([[self.n], {"n": self.n}, True, None, self.n + 0.5])
            return msg, "bad-id"
        return msg, "notification"


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def fuzz_phase(c: RawClient, fz: Fuzzer, count: int) -> tuple[list[Any], int]:
    """Send `count` messages round-robin over every method; the valid request ids and the bad-id count."""
    names = methods()
    ids: list[Any] = []
    bad = 0
    for i in range(count):
        msg, kind = fz.message(names[i % len(names)])
        if kind == "request":
            ids.append(msg["id"])
        elif kind == "bad-id":
            bad += 1
        c.send(msg)
    return ids, bad


def settle(c: RawClient, ids: list[Any], bad_before: int, bad: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(c.responses_to(i) for i in ids) and null_errors(c) >= bad_before + bad:
            break
        time.sleep(0.05)
    missing = [i for i in ids if not c.responses_to(i)]
    assert not missing, f"{len(missing)} requests never answered, e.g. {missing[:5]}"
    twice = [i for i in ids if len(c.responses_to(i)) != 1]
    assert not twice, f"answered more than once: {twice[:5]}"
    assert null_errors(c) == bad_before + bad, (null_errors(c), bad_before, bad)


def null_errors(c: RawClient) -> int:
    with c.lock:
        found = [m for m in c.messages if "method" not in m and m.get("id") is None and "error" in m]
    assert all(m["error"]["code"] == INVALID_REQUEST for m in found), found[:3]
    return len(found)


def alive(c: RawClient) -> None:
    ok = c.call("workspace/executeCommand", {"command": "agentLsp.listSessions", "arguments": []}, timeout=10)
    assert "result" in ok, ok


CALC = "def add(a, b):\n    return a - b\n"


@pytest.mark.parametrize("seed", [SEED])
def test_fuzz_idle_then_mid_task(workspace, model, seed):
    (workspace / "calc.py").write_text(CALC)
    (workspace / "other.py").write_text("x = 1\n")
    uris = [(workspace / "calc.py").as_uri(), (workspace / "other.py").as_uri(), (workspace / "new.py").as_uri()]
    fz = Fuzzer(random.Random(seed), uris)
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}), reply("done"))
    c = RawClient(workspace, model.base_url)
    t0 = time.monotonic()
    c.initialize({"workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True}}})
    before = snapshot(workspace)

    ids, bad = fuzz_phase(c, fz, PER_PHASE)  # idle
    settle(c, ids, 0, bad)
    alive(c)

    # mid-task: the agent's edit waits in the inline review (this client previews nothing)
    uri = c.open(workspace / "calc.py", CALC)
    task = c.request("workspace/executeCommand", {"command": "agentLsp.runTask", "arguments": [{"task": "fix add"}]})
    c.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
               and m["params"]["uri"] == uri and m["params"]["diagnostics"], timeout=20)
    bad_before = null_errors(c)
    fz.uris = uris[1:]  # the reviewed buffer itself is left alone: a change there would end the edit (stale)
    ids, bad = fuzz_phase(c, fz, PER_PHASE)
    settle(c, [i for i in ids], bad_before, bad)
    alive(c)
    assert not c.responses_to(task), "the task ended during the fuzz (a decision only the person makes)"
    assert snapshot(workspace) == before, "a file changed without an accepted edit"

    cancelled = c.call("workspace/executeCommand", {"command": "agentLsp.cancel", "arguments": []})
    assert cancelled["result"] == {"cancelled": True}, cancelled
    end = c.response(task, timeout=10)
    assert end["result"]["status"] == "cancelled", end
    assert snapshot(workspace) == before
    traceback_free(c)
    assert not c.bad_frames
    assert c.close() == 0
    assert time.monotonic() - t0 < 60
